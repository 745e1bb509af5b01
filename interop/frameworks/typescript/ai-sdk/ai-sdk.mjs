// The Vercel AI SDK (npm `ai` 7 with `@ai-sdk/mcp` 2) driven through ../contract.mjs.
//
// Read from the installed packages: `@ai-sdk/mcp` has its own MCP client (no official SDK);
// `createMCPClient` probes `server/discover` and falls back to `initialize`
// (`protocolVersionDiscovery`, default true), so only `default`. Its tools' `execute` hands the
// step's `abortSignal` to `callTool({ options: { signal } })`; an aborted request is rejected
// locally and the signal reaches the transport's `send` (dist/index.js, `request`); the client
// has no `notifications/cancelled` anywhere. `generateText({ abortSignal, timeout: { toolMs } })`
// is the run's signal and its per-tool timeout (ai/dist/index.d.ts, TimeoutConfiguration).
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport as StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

import { finalText, installedVersion, runFramework } from '../contract.mjs';

const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 }
};

/** The mock model: turn 1 calls the cell's tool, after its result it answers with a text. */
function scriptedModel(tool) {
    return new MockLanguageModelV4({
        doGenerate: async ({ prompt }) => {
            const result = prompt.flatMap(message => (message.role === 'tool' ? message.content : [])).find(part => part.type === 'tool-result');
            const content = result
                ? [{ type: 'text', text: finalText(result.output?.value ?? result.output) }]
                : [{ type: 'tool-call', toolCallId: 'call_1', toolName: tool.name, input: JSON.stringify(tool.arguments) }];
            const finishReason = { unified: result ? 'stop' : 'tool-calls', raw: undefined };
            return { content, finishReason, usage, warnings: [] };
        }
    });
}

const adapter = {
    name: 'ai-sdk',
    package: 'ai',
    version: installedVersion(import.meta.url, 'ai'),
    mcpSdk: { package: '@ai-sdk/mcp', version: installedVersion(import.meta.url, '@ai-sdk/mcp') },
    revisions: ['default'],
    stops: {
        'tool timeout': 'timeout',
        'run abort': 'signal',
        'close client': fw => fw.client.close(),
        'process exit': 'exit'
    },
    unavailable: {
        'callback exception':
            'no callback runs while a tool executes: onToolExecutionStart fires before it, onToolExecutionEnd after, and no stream chunk comes in between'
    },
    async open(cell) {
        const transport =
            cell.server.transport === 'stdio'
                ? new StdioMCPTransport({ command: cell.server.command, args: cell.server.args })
                : { type: 'http', url: cell.server.url };
        const client = await createMCPClient({ transport });
        return { client, tools: await client.tools(), toolTimeoutMs: cell.toolTimeoutMs };
    },
    async run(fw, tool, { signal }) {
        const timeout = fw.toolTimeoutMs && tool.name === 'slow' ? { toolMs: fw.toolTimeoutMs } : undefined;
        const result = await generateText({
            model: scriptedModel(tool),
            tools: fw.tools,
            prompt: 'go',
            stopWhen: stepCountIs(3),
            abortSignal: signal,
            timeout
        });
        return result.text;
    },
    close: fw => fw.client.close()
};

runFramework(adapter);
