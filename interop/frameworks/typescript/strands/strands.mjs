// Strands Agents for TypeScript (npm `@strands-agents/sdk`) driven through ../contract.mjs.
//
// Read from the installed package (dist/src): `McpClient` wraps the v1 SDK
// `@modelcontextprotocol/sdk` (its `Client` negotiates by itself, so only `default`); an MCP
// tool's `stream` hands `toolContext.cancelSignal` to `callTool(..., { signal })`
// (tools/mcp-tool.js; strands sdk-typescript#1069); `agent.invoke(..., { cancelSignal })` is the
// run's external signal and `agent.cancel()` the framework's own stop (agent.d.ts); the client's
// options have no request timeout (only a tasks poll timeout) and no callback runs during a call.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Agent, McpClient, Model } from '@strands-agents/sdk';

import { finalText, installedVersion, mcpSdkOf, runFramework } from '../contract.mjs';

let calls = 0;

/** A custom `Model`: turn 1 streams the cell's tool use, after its result it streams a text. */
class ScriptedTurns extends Model {
    constructor(tool) {
        super();
        this.tool = tool;
        this.config = { modelId: 'scripted' };
    }
    updateConfig(config) {
        this.config = { ...this.config, ...config };
    }
    getConfig() {
        return this.config;
    }
    async *stream(messages) {
        const blocks = messages.flatMap(message => message.content ?? []);
        const result = blocks.findLast(block => block.type === 'toolResultBlock');
        yield { type: 'modelMessageStartEvent', role: 'assistant' };
        if (result) {
            yield { type: 'modelContentBlockStartEvent' };
            yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: finalText(result.content) } };
            yield { type: 'modelContentBlockStopEvent' };
            yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
            return;
        }
        calls += 1;
        yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name: this.tool.name, toolUseId: `call_${calls}` } };
        yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input: JSON.stringify(this.tool.arguments) } };
        yield { type: 'modelContentBlockStopEvent' };
        yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
    }
}

const adapter = {
    name: 'strands-js',
    package: '@strands-agents/sdk',
    version: installedVersion(import.meta.url, '@strands-agents/sdk'),
    mcpSdk: mcpSdkOf(import.meta.url),
    revisions: ['default'],
    stops: {
        'run abort': 'signal',
        'framework stop': fw => fw.agent.cancel(),
        'close client': fw => fw.client.disconnect(),
        'process exit': 'exit'
    },
    unavailable: {
        'tool timeout': 'McpClient has no request timeout option (McpClientOptions: only the tasks poll timeout)',
        'callback exception': 'no callback runs while an MCP tool call is in flight (no progress or log callback fires for it)'
    },
    async open(cell) {
        const client =
            cell.server.transport === 'stdio'
                ? new McpClient({ transport: new StdioClientTransport({ command: cell.server.command, args: cell.server.args }) })
                : new McpClient({ url: cell.server.url });
        await client.connect();
        return { client, agent: null };
    },
    async run(fw, tool, { signal }) {
        fw.agent = new Agent({ model: new ScriptedTurns(tool), tools: [fw.client], printer: false });
        const result = await fw.agent.invoke('go', { cancelSignal: signal });
        const text = result.lastMessage?.content?.map(block => block.text ?? '').join('') ?? '';
        return `${text} (stopReason: ${result.stopReason})`;
    },
    close: fw => fw.client.disconnect()
};

runFramework(adapter);
