// LangChain.js (npm `@langchain/mcp-adapters` 1.1 with `langchain`'s `createAgent`) driven
// through ../contract.mjs.
//
// Read from the installed packages: `MultiServerMCPClient` wraps the v1 SDK
// `@modelcontextprotocol/sdk` (whose `Client` negotiates by itself, so only `default`); each tool's
// `_callTool` (dist/tools.js) hands the run config's `signal` and `timeout` to `callTool`, and a
// server's `defaultToolTimeout` becomes the tool's default config `timeout`; the client's
// `onProgress` hook is called per progress notification (the `callback exception` callback);
// `close()` closes every connection. The model is `fakeModel()` from `@langchain/core/testing`.
import { createAgent } from 'langchain';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

import { finalText, installedVersion, mcpSdkOf, runFramework } from '../contract.mjs';

let calls = 0;

/** The fake model: turn 1 calls the cell's tool, after its result it answers with a text. */
function scriptedModel(tool) {
    const turn = messages => {
        const result = messages.findLast(message => message.getType?.() === 'tool');
        if (result) return new AIMessage(finalText(result.content));
        calls += 1;
        return new AIMessage({ content: '', tool_calls: [{ id: `call_${calls}`, name: tool.name, args: tool.arguments }] });
    };
    return fakeModel().respond(turn).respond(turn);
}

const adapter = {
    name: 'langchain-js',
    package: '@langchain/mcp-adapters',
    version: installedVersion(import.meta.url, '@langchain/mcp-adapters'),
    mcpSdk: mcpSdkOf(import.meta.url),
    revisions: ['default'],
    stops: {
        'tool timeout': 'timeout',
        'run abort': 'signal',
        'callback exception': 'hook',
        'close client': fw => fw.client.close(),
        'process exit': 'exit'
    },
    unavailable: {},
    async open(cell) {
        const timeout = cell.toolTimeoutMs ? { defaultToolTimeout: cell.toolTimeoutMs } : {};
        const server =
            cell.server.transport === 'stdio'
                ? { transport: 'stdio', command: cell.server.command, args: cell.server.args, ...timeout }
                : { transport: 'http', url: cell.server.url, ...timeout };
        const fw = { hook: () => {} };
        fw.client = new MultiServerMCPClient({
            mcpServers: { testserver: server },
            prefixToolNameWithServerName: false,
            // The callback the `callback exception` scenario throws in.
            onProgress: () => fw.hook()
        });
        fw.tools = await fw.client.getTools();
        return fw;
    },
    async run(fw, tool, { signal, hook }) {
        fw.hook = hook;
        const agent = createAgent({ model: scriptedModel(tool), tools: fw.tools });
        const state = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { signal, recursionLimit: 6 });
        return String(state.messages.at(-1).content);
    },
    close: fw => fw.client.close()
};

runFramework(adapter);
