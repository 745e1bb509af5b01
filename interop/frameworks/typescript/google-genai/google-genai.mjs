// Google's GenAI SDK (npm `@google/genai`) with an MCP session as a tool (`mcpToTool`), driven
// through ../contract.mjs.
//
// Read from the installed package (dist/node/index.mjs): `mcpToTool(client, { timeout })` makes a
// `CallableTool` whose `callTool(functionCalls)` calls the v1 SDK client's `callTool` with only
// `{ timeout }` as request options (no signal: googleapis/js-genai#1054); `generateContent`'s
// automatic function calling loop awaits that `callTool` between two model requests, and
// `config.abortSignal` goes only to the model's HTTP requests. The user makes the MCP `Client`
// (so it negotiates by itself: only `default`) and closes it. The scripted model answers the
// SDK's `:generateContent` requests in-process (a `fetch` wrapper for one made-up host); no
// request leaves the machine.
import { GoogleGenAI, mcpToTool } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { finalText, installedVersion, mcpSdkOf, runFramework } from '../contract.mjs';

// The made-up API host the scripted model answers for.
const MODEL_HOST = 'scripted-model.invalid';
let tool = null;

/** The scripted model's reply to one generateContent request body. */
function reply(body) {
    const parts = body.contents.flatMap(content => content.parts ?? []);
    const result = parts.findLast(part => part.functionResponse);
    const part = result ? { text: finalText(result.functionResponse.response) } : { functionCall: { name: tool.name, args: tool.arguments } };
    return { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }] };
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.hostname !== MODEL_HOST) return realFetch(input, init);
    init?.signal?.throwIfAborted();
    const body = JSON.parse(init?.body ?? (await input.text()));
    return new Response(JSON.stringify(reply(body)), { status: 200, headers: { 'content-type': 'application/json' } });
};

const adapter = {
    name: 'google-genai-js',
    package: '@google/genai',
    version: installedVersion(import.meta.url, '@google/genai'),
    mcpSdk: mcpSdkOf(import.meta.url),
    revisions: ['default'],
    stops: {
        'tool timeout': 'timeout',
        'run abort': 'signal',
        'close client': fw => fw.client.close(),
        'process exit': 'exit'
    },
    unavailable: {
        'callback exception': 'no callback runs during the automatic function call: CallableTool.callTool is awaited with no hook'
    },
    async open(cell) {
        const transport =
            cell.server.transport === 'stdio'
                ? new StdioClientTransport({ command: cell.server.command, args: cell.server.args })
                : new StreamableHTTPClientTransport(new URL(cell.server.url));
        const client = new Client({ name: 'cell', version: '1.0.0' });
        await client.connect(transport);
        const ai = new GoogleGenAI({ apiKey: 'scripted', httpOptions: { baseUrl: `http://${MODEL_HOST}/` } });
        return { client, ai, callable: mcpToTool(client, cell.toolTimeoutMs ? { timeout: cell.toolTimeoutMs } : {}) };
    },
    async run(fw, call, { signal }) {
        tool = call;
        const response = await fw.ai.models.generateContent({
            model: 'scripted',
            contents: 'go',
            config: { tools: [fw.callable], abortSignal: signal, automaticFunctionCalling: { maximumRemoteCalls: 3 } }
        });
        return response.text ?? JSON.stringify(response.candidates?.[0]?.content);
    },
    close: fw => fw.client.close()
};

runFramework(adapter);
