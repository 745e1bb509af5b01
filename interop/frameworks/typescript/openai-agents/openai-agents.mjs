// The OpenAI Agents SDK for JavaScript (npm `@openai/agents`) driven through ../contract.mjs.
//
// Read from the installed package (node_modules/@openai/agents-core/dist): MCP servers are
// `MCPServerStdio` / `MCPServerStreamableHttp` on the v2 client `@modelcontextprotocol/client`
// (its `versionNegotiation: { mode: 'auto' }` is fixed by the framework, so only `default`); their
// `timeout` option (ms) is each tool call's request timeout; `run(..., { signal })` hands the run's
// signal to `callToolResult` (mcp.mjs, `details.signal`: openai-agents-js#1531); `close()` closes
// the transport and the client.
import { Agent, MCPServerStdio, MCPServerStreamableHttp, Runner, Usage } from '@openai/agents';
import { assistantMessage, functionCall } from '@openai/agents-core/testing';

import { finalText, installedVersion, mcpSdkOf, runFramework } from '../contract.mjs';

/** A custom `Model`: turn 1 calls the cell's tool, after its result it answers with a text. */
class ScriptedTurns {
    constructor(tool) {
        this.tool = tool;
    }
    async getResponse(request) {
        const items = Array.isArray(request.input) ? request.input : [];
        const result = items.find(item => item.type === 'function_call_result');
        const output = result
            ? [assistantMessage(finalText(result.output))]
            : [functionCall(this.tool.name, this.tool.arguments, { callId: 'call_1' })];
        return { usage: new Usage(), output };
    }
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
        throw new Error('the scripted model does not stream');
    }
}

const adapter = {
    name: 'openai-agents-js',
    package: '@openai/agents',
    version: installedVersion(import.meta.url, '@openai/agents'),
    mcpSdk: mcpSdkOf(import.meta.url),
    revisions: ['default'],
    stops: {
        'tool timeout': 'timeout',
        'run abort': 'signal',
        'close client': fw => fw.server.close(),
        'process exit': 'exit'
    },
    unavailable: {
        'callback exception':
            'no hook runs while an MCP tool call is in flight: agent_tool_start fires before it, agent_tool_end after'
    },
    async open(cell) {
        const timeout = cell.toolTimeoutMs ?? undefined;
        const server =
            cell.server.transport === 'stdio'
                ? new MCPServerStdio({ name: 'testserver', command: cell.server.command, args: cell.server.args, timeout })
                : new MCPServerStreamableHttp({ name: 'testserver', url: cell.server.url, timeout });
        await server.connect();
        return { server, runner: new Runner({ tracingDisabled: true }) };
    },
    async run(fw, tool, { signal }) {
        const agent = new Agent({ name: 'cell', instructions: 'scripted', model: new ScriptedTurns(tool), mcpServers: [fw.server] });
        const result = await fw.runner.run(agent, 'go', { signal, maxTurns: 3 });
        return String(result.finalOutput);
    },
    close: fw => fw.server.close()
};

runFramework(adapter);
