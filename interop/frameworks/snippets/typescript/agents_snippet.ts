// The helper the book's `ts-agents` snippets use (book/frameworks.md): where the test server is
// (stdio, or `httpTestServer()` over Streamable HTTP), and a scripted model for the AI SDK (npm
// `ai`) and for Google's GenAI SDK (`scriptedGemini`), so an agent run calls one MCP tool with no
// network model.
//
//     import { scriptedModel, testServer } from 'agents-snippet';
//     const transport = new StdioMCPTransport(testServer());   // { command, args }
//     await generateText({ model: scriptedModel('slow', { steps: 15, step_ms: 200 }), ... });
//
// `testServer()` names `$MCP_TESTSERVER` or `target/release/mcp-testserver` (relative paths from
// the repository root), with `--artifacts $MDBOOK_SNIPPETS_ARTIFACTS` and `--mutant
// $MDBOOK_SNIPPETS_MUTANT` when the verifier set them, as interop/snippets/ does: the stdio
// transport passes the server a short list of variables only.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { GoogleGenAI } from '@google/genai';
import { MockLanguageModelV4 } from 'ai/test';

/** interop/frameworks/snippets/typescript/agents_snippet.ts -> the repository root. */
const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The test server as a stdio transport's `{ command, args }`. */
export function testServer(): { command: string; args: string[] } {
    const named = process.env.MCP_TESTSERVER || 'target/release/mcp-testserver';
    const command = isAbsolute(named) ? named : resolve(REPOSITORY_ROOT, named);
    accessSync(command, constants.X_OK);
    const artifacts = process.env.MDBOOK_SNIPPETS_ARTIFACTS;
    const mutant = (process.env.MDBOOK_SNIPPETS_MUTANT ?? '').trim();
    const args = [
        ...(artifacts ? ['--artifacts', artifacts] : []),
        ...(mutant ? ['--mutant', mutant] : []),
    ];
    return { command, args };
}

const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A mock model: its first turn calls `tool` with `input`; after a tool result it says "done". */
export function scriptedModel(tool: string, input: object): MockLanguageModelV4 {
    return new MockLanguageModelV4({
        doGenerate: async ({ prompt }) => {
            const answered = prompt.some(message => message.role === 'tool');
            const content = answered
                ? [{ type: 'text' as const, text: 'done' }]
                : [{
                      type: 'tool-call' as const,
                      toolCallId: 'call_1',
                      toolName: tool,
                      input: JSON.stringify(input),
                  }];
            const finishReason = { unified: answered ? 'stop' : 'tool-calls', raw: undefined };
            return { content, finishReason, usage, warnings: [] } as never;
        },
    });
}

/** The test server over Streamable HTTP on a loopback port: its URL, and a `stop()`. With
 * `--handler-log-all`, a session of the snippet's own sees the framework's sessions' lines. */
export async function httpTestServer(): Promise<{ url: URL; stop: () => void }> {
    const { command, args } = testServer();
    const server = spawn(command, [...args, '--http', '127.0.0.1:0', '--handler-log-all'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const lines = createInterface({ input: server.stderr! });
    for await (const line of lines) {
        const at = line.indexOf('listening on ');
        if (at >= 0) {
            server.stderr!.resume(); // keep draining it
            return { url: new URL(line.slice(at + 'listening on '.length).trim()), stop: () => server.kill() };
        }
    }
    throw new Error(`the test server exited (${server.exitCode}) without a URL`);
}

/** The made-up host a scripted Gemini model answers for (in-process: no request leaves). */
const GEMINI_HOST = 'scripted-model.invalid';

/** A `GoogleGenAI` whose model calls `tool` with `args` first, then says "done" after a tool's
 * answer: `fetch` answers its `:generateContent` requests in-process. */
export function scriptedGemini(tool: string, args: object): GoogleGenAI {
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
        const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
        if (url.hostname !== GEMINI_HOST) return realFetch(input, init);
        init?.signal?.throwIfAborted();
        const body = JSON.parse(String(init?.body));
        const answered = body.contents.some((content: { parts?: { functionResponse?: unknown }[] }) =>
            content.parts?.some(part => part.functionResponse));
        const part = answered ? { text: 'done' } : { functionCall: { name: tool, args } };
        const candidates = [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }];
        return new Response(JSON.stringify({ candidates }), { headers: { 'content-type': 'application/json' } });
    };
    return new GoogleGenAI({ apiKey: 'scripted', httpOptions: { baseUrl: `http://${GEMINI_HOST}/` } });
}
