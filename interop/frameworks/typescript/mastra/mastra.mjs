// Mastra (npm `@mastra/mcp` 2 with `@mastra/core`) driven through ../contract.mjs.
//
// Read from the installed packages: `MCPClient` wraps the v2 client `@modelcontextprotocol/client`;
// a server's `protocolVersion` option pins '2026-07-28' or 'legacy' (the `initialize` handshake),
// unset it probes; `timeout` (ms) is every request's timeout; a tool's `execute` hands the agent's
// `context.abortSignal` to `callTool(..., { signal })` (dist/index.js; mastra#13647);
// `disconnect()` closes every server; with `enableProgressTracking` each call carries a progress
// token and `mcp.progress.onUpdate(server, handler)` is called per progress notification.
import { Agent } from '@mastra/core/agent';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { MCPClient } from '@mastra/mcp';

import { finalText, installedVersion, mcpSdkOf, runFramework } from '../contract.mjs';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** The turn the scripted model takes: the cell's tool call, or once it has a tool result, a text. */
function turn(prompt, toolName, tool) {
    const result = prompt.flatMap(message => (message.role === 'tool' ? message.content : [])).find(part => part.type === 'tool-result');
    return result
        ? { content: [{ type: 'text', text: finalText(result.output?.value ?? result.output) }], finishReason: 'stop' }
        : { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName, input: JSON.stringify(tool.arguments) }], finishReason: 'tool-calls' };
}

/** The mock model (Mastra's loop may generate or stream): turn 1 calls the tool, then a text. */
function scriptedModel(toolName, tool) {
    return new MastraLanguageModelV2Mock({
        doGenerate: async ({ prompt }) => ({ ...turn(prompt, toolName, tool), usage, warnings: [] }),
        doStream: async ({ prompt }) => {
            const { content, finishReason } = turn(prompt, toolName, tool);
            const parts = content.flatMap(part =>
                part.type === 'text'
                    ? [{ type: 'text-start', id: 't1' }, { type: 'text-delta', id: 't1', delta: part.text }, { type: 'text-end', id: 't1' }]
                    : [part]
            );
            const stream = new ReadableStream({
                start(controller) {
                    for (const part of [{ type: 'stream-start', warnings: [] }, ...parts, { type: 'finish', finishReason, usage }]) controller.enqueue(part);
                    controller.close();
                }
            });
            return { stream };
        }
    });
}

// The revisions a server definition's `protocolVersion` pins ('legacy' negotiates 2025-11-25 here).
const PINS = { default: undefined, '2025-11-25': 'legacy', '2026-07-28': '2026-07-28' };

const adapter = {
    name: 'mastra',
    package: '@mastra/mcp',
    version: installedVersion(import.meta.url, '@mastra/mcp'),
    mcpSdk: mcpSdkOf(import.meta.url),
    revisions: Object.keys(PINS),
    stops: {
        'tool timeout': 'timeout',
        'run abort': 'signal',
        'callback exception': 'hook',
        'close client': fw => fw.mcp.disconnect(),
        'process exit': 'exit'
    },
    unavailable: {},
    async open(cell) {
        const common = { protocolVersion: PINS[cell.revision], enableProgressTracking: true, timeout: cell.toolTimeoutMs ?? undefined };
        const server =
            cell.server.transport === 'stdio'
                ? { command: cell.server.command, args: cell.server.args, ...common }
                : { url: new URL(cell.server.url), ...common };
        const mcp = new MCPClient({ id: `cell-${process.pid}`, servers: { testserver: server }, timeout: cell.toolTimeoutMs ?? undefined });
        const tools = await mcp.listTools();
        const fw = { mcp, tools, hook: () => {} };
        // The callback the `callback exception` scenario throws in: the progress handler.
        await mcp.progress.onUpdate('testserver', () => fw.hook());
        return fw;
    },
    async run(fw, tool, { signal, hook }) {
        fw.hook = hook;
        const toolName = `testserver_${tool.name}`;
        const agent = new Agent({ id: 'cell', name: 'cell', instructions: 'scripted', model: scriptedModel(toolName, tool), tools: fw.tools });
        const result = await agent.generate('go', { abortSignal: signal, maxSteps: 3 });
        if (result.error) throw result.error;
        return `${result.text} (finishReason: ${result.finishReason})`;
    },
    close: fw => fw.mcp.disconnect()
};

runFramework(adapter);
