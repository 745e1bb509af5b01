// The helper the book's `ts-fastmcp` snippets use: serve the FastMCP server a snippet defines,
// call a tool with the official SDK v1 client (npm `@modelcontextprotocol/sdk`, the one `fastmcp`
// is built on), stop the call, and watch what follows.
//
//     import { stopCall } from 'fastmcp-snippet';
//     await stopCall(server, 'slow', 'cancel');   // or 'close stream', 'end session'
//
// The server listens on a free loopback port (Streamable HTTP, protocol 2025-11-25, the SDK v1's
// newest). 0.6 s after the call: 'cancel' aborts the call's signal (the client sends
// `notifications/cancelled`), 'close stream' closes the client transport (the response stream
// goes, the session stays), 'end session' sends the session's DELETE first. Then it waits 2.5 s,
// prints what the client saw, and stops the server. The frameworks' own log lines (`[FastMCP
// info] ...`, `[mcp-proxy] ...`, written with console.log/info/warn) are left out meanwhile.
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastMCP } from 'fastmcp';

type Stop = 'cancel' | 'close stream' | 'end session';

async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    await new Promise(resolve => probe.close(resolve));
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
}

/** Drops the frameworks' own log lines (console.log/info/warn/debug) until the returned undo. */
function quietFrameworks(): () => void {
    const { log, info, warn, debug } = console;
    const saved = { log, info, warn, debug };
    for (const name of ['log', 'info', 'warn', 'debug'] as const) {
        console[name] = (...args: unknown[]) => {
            if (/^\[(FastMCP|mcp-proxy)/.test(String(args[0]))) return;
            saved[name](...args);
        };
    }
    return () => Object.assign(console, saved);
}

export async function stopCall(server: FastMCP, tool: string, stop: Stop): Promise<void> {
    const undo = quietFrameworks();
    try {
        await run(server, tool, stop);
    } finally {
        undo();
    }
}

async function run(server: FastMCP, tool: string, stop: Stop): Promise<void> {
    const port = await freePort();
    await server.start({
        transportType: 'httpStream',
        httpStream: { host: '127.0.0.1', port, endpoint: '/mcp' },
    });
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const transport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: 'caller', version: '1.0.0' });
    await client.connect(transport);
    const controller = new AbortController();
    const call = client
        .callTool({ name: tool, arguments: {} }, undefined, { signal: controller.signal })
        .then(
            () => 'the result',
            error => `an error: ${error instanceof Error ? error.message : String(error)}`,
        );
    await sleep(600);
    if (stop === 'cancel') controller.abort('user pressed stop');
    if (stop === 'end session') await transport.terminateSession();
    if (stop !== 'cancel') await client.close();
    await sleep(2_500);
    const seen = await Promise.race([call, sleep(0).then(() => 'nothing yet')]);
    console.log(`the client saw: ${seen}`);
    if (stop === 'cancel') await client.close();
    await server.stop();
}
