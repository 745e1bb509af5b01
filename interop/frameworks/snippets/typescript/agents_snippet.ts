// The helper the book's `ts-agents` snippets use (book/frameworks.md): where the test server is,
// and a scripted model for the AI SDK (npm `ai`), so an agent run calls one MCP tool with no
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
import { accessSync, constants } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
