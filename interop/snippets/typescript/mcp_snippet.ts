// The helper a TypeScript snippet uses to talk to `mcp-testserver` with the official TypeScript
// SDK v2 client (npm `@modelcontextprotocol/client` 2.4.0, pinned in package.json here).
//
//     import { withClient, openGate } from 'mcp-snippet';
//
//     await withClient('stdio', async client => {      // or 'http'
//         console.log(await openGate(client, 'go'));
//         await inFlight(client, 'slow');              // a `slow` handler is running on the server
//         await idle(client);                          // none is (or 3 s passed)
//         console.log(await handlerLog(client));       // ['slow#1 started', ...]
//     });
//
// `connect` starts the test server binary (`$MCP_TESTSERVER`, default
// `target/release/mcp-testserver` under the repository root), passes
// `--artifacts $MDBOOK_SNIPPETS_ARTIFACTS` and `--mutant $MDBOOK_SNIPPETS_MUTANT` on when the
// verifier set those variables (the SDK's stdio transport does not pass the environment on), and
// connects a `Client` over stdio or Streamable
// HTTP; `close()` closes it and waits for the server to exit, so the server has written its wire
// transcript and sequence diagram by then. `withClient` always closes.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** Where the server binary is named; relative paths are taken from the repository root. */
export const SERVER_VAR = 'MCP_TESTSERVER';
export const DEFAULT_SERVER = 'target/release/mcp-testserver';
/** The verifier's artifact directory for this snippet. */
export const ARTIFACTS_VAR = 'MDBOOK_SNIPPETS_ARTIFACTS';
/** The rule the verifier's `--mutants` mode asks the server to break (`mcp-testserver --list-mutants`). */
export const MUTANT_VAR = 'MDBOOK_SNIPPETS_MUTANT';
/** interop/snippets/typescript/mcp_snippet.ts -> the repository root. */
const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** How long the server may take to print its address, and to exit once asked. */
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;

export type Transport = 'stdio' | 'http';

/** A connected client and the way to end it all. */
export interface Snippet {
    client: Client;
    /** Closes the client and waits for the server to exit (it writes its artifacts first). */
    close(): Promise<void>;
}

/** The test server binary: `$MCP_TESTSERVER` or the release build, from the repository root. */
export function serverBinary(): string {
    const named = process.env[SERVER_VAR] || DEFAULT_SERVER;
    const path = isAbsolute(named) ? named : resolve(REPOSITORY_ROOT, named);
    try {
        accessSync(path, constants.X_OK);
    } catch {
        throw new Error(`no test server binary at ${path} (cargo build --release -p mcp-testserver, or set $${SERVER_VAR})`);
    }
    return path;
}

/** The server's arguments: `extra`, then `--artifacts DIR` and `--mutant NAME` when the verifier named them. */
export function serverArguments(...extra: string[]): string[] {
    const artifacts = process.env[ARTIFACTS_VAR];
    const mutant = (process.env[MUTANT_VAR] ?? '').trim();
    return [...extra, ...(artifacts ? ['--artifacts', artifacts] : []), ...(mutant ? ['--mutant', mutant] : [])];
}

/** What `connect` may put between the client and the SDK's HTTP transport: a wrapper, as hosts
 *  write them (to log or count messages), around the transport the SDK built. */
export type WrapTransport = (transport: StreamableHTTPClientTransport) => Parameters<Client['connect']>[0];

/** A fresh test server and a `Client` connected to it (`clientOptions` as `new Client` takes them;
 *  `serverFlags` go to the server, e.g. `['--conformance']` for its `subscriptions/listen`, HTTP only;
 *  `wrap`, HTTP only, puts a wrapper around the transport). */
export async function connect(
    transport: Transport = 'stdio',
    clientOptions?: ConstructorParameters<typeof Client>[1],
    serverFlags: string[] = [],
    wrap?: WrapTransport
): Promise<Snippet> {
    const client = new Client({ name: 'mcp-snippet', version: '0.1.0' }, clientOptions);
    if (transport === 'stdio') {
        // The SDK ends the server's stdin and waits for it to exit in `close()`.
        const stdio = new StdioClientTransport({ command: serverBinary(), args: serverArguments(...serverFlags), stderr: 'inherit' });
        await client.connect(stdio);
        return { client, close: () => client.close() };
    }
    if (transport === 'http') {
        const server = await startHttpServer(serverFlags);
        try {
            const http = new StreamableHTTPClientTransport(new URL(server.url));
            await client.connect(wrap ? wrap(http) : http);
        } catch (error) {
            await server.stop();
            throw error;
        }
        return {
            client,
            close: async () => {
                try {
                    await client.close();
                } finally {
                    await server.stop();
                }
            }
        };
    }
    throw new Error(`unknown transport ${JSON.stringify(transport)} (expected 'stdio' or 'http')`);
}

/** Runs `body` with a connected client, and closes it (and the server) however `body` ends. */
export async function withClient<T>(transport: Transport, body: (client: Client) => Promise<T>): Promise<T> {
    const snippet = await connect(transport);
    try {
        return await body(snippet.client);
    } finally {
        await snippet.close();
    }
}

/** Opens `gate` with the server's `open_gate` tool (a `wait_gate` call on it returns); the
 *  tool's reply text, e.g. "opened go". */
export async function openGate(client: Client, gate: string): Promise<string> {
    const result = await client.callTool({ name: 'open_gate', arguments: { gate } });
    return textOf(result);
}

/** The text of a tool result's first content block. */
export function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
    const first = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
    if (first?.type !== 'text' || first.text === undefined) {
        throw new Error(`the result has no text: ${JSON.stringify(result)}`);
    }
    return first.text;
}

/** How often `inFlight` and `idle` ask the server, and for how long before they give up. */
const POLL_MS = 20;
const WAIT_LIMIT_MS = 3000;

/** The server's handler log (its `handler_log` tool): "wait_gate#1 started", "wait_gate#1
 *  stopped by cancel", ...; asking does not add to it. */
export async function handlerLog(client: Client): Promise<string[]> {
    const text = textOf(await client.callTool({ name: 'handler_log', arguments: {} }));
    return text ? text.split('\n') : [];
}

/** The `params` of every `notifications/cancelled` the server received so far (its `transcript`
 *  tool), in order: what the SDK put on the wire when a call was stopped. */
export async function cancelsReceived(client: Client): Promise<Array<Record<string, unknown>>> {
    const wire = JSON.parse(textOf(await client.callTool({ name: 'transcript', arguments: {} }))) as Array<{
        direction: string;
        message: { method?: string; params?: Record<string, unknown> };
    }>;
    return wire
        .filter(entry => entry.direction === 'in' && entry.message.method === 'notifications/cancelled')
        .map(entry => entry.message.params ?? {});
}

/** The labels ("slow#1") of the handlers that started and have not ended. */
function running(lines: string[]): string[] {
    const labels: string[] = [];
    for (const line of lines) {
        const space = line.indexOf(' ');
        const label = line.slice(0, space);
        const event = line.slice(space + 1);
        if (event === 'started') labels.push(label);
        else if (labels.includes(label) && /^(completed|stopped|answered|failed)/.test(event)) {
            labels.splice(labels.indexOf(label), 1);
        }
    }
    return labels;
}

/** Waits until a `tool` handler is running on the server (so a cancel now reaches it). */
export async function inFlight(client: Client, tool: string): Promise<void> {
    const found = await waitUntil(client, lines => running(lines).some(label => label.startsWith(`${tool}#`)));
    if (!found) throw new Error(`no ${tool} handler was running within ${WAIT_LIMIT_MS} ms`);
}

/** Waits until no handler is running, or `WAIT_LIMIT_MS` passed (the log then shows which one
 *  still is: a snippet's output tells, rather than a hang). */
export async function idle(client: Client): Promise<void> {
    await waitUntil(client, lines => running(lines).length === 0);
}

async function waitUntil(client: Client, done: (lines: string[]) => boolean): Promise<boolean> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!done(await handlerLog(client))) {
        if (Date.now() > deadline) return false;
        await new Promise(resolveSleep => setTimeout(resolveSleep, POLL_MS));
    }
    return true;
}

/** `mcp-testserver --http 127.0.0.1:0` as a child process: its URL while it runs; stopped with
 *  SIGTERM (it writes its artifacts, then exits 0). Its stdin is a pipe this process holds, so
 *  the server also stops if this process dies first. Its stderr is passed on to ours. */
async function startHttpServer(flags: string[]): Promise<{ url: string; stop(): Promise<void> }> {
    const child = spawn(serverBinary(), serverArguments('--http', '127.0.0.1:0', ...flags), { stdio: ['pipe', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>(resolveExit => child.once('exit', code => resolveExit(code)));
    const url = await new Promise<string>((resolveUrl, reject) => {
        const timer = setTimeout(() => reject(new Error(`the test server printed no address within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        const prefix = 'mcp-testserver: listening on ';
        createInterface({ input: child.stderr! }).on('line', line => {
            process.stderr.write(`${line}\n`);
            if (line.startsWith(prefix)) {
                clearTimeout(timer);
                resolveUrl(line.slice(prefix.length).trim());
            }
        });
        child.once('error', error => {
            clearTimeout(timer);
            reject(error);
        });
        child.once('exit', code => {
            clearTimeout(timer);
            reject(new Error(`the test server exited with ${code} before listening`));
        });
    }).catch(async error => {
        await stopChild(child, exited);
        throw error;
    });
    return {
        url,
        stop: async () => {
            const code = await stopChild(child, exited);
            if (code !== 0) throw new Error(`the test server exited with ${code} after SIGTERM`);
        }
    };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(resolveTimeout => {
        timer = setTimeout(() => resolveTimeout('timeout'), STOP_TIMEOUT_MS);
    });
    const outcome = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    child.stdin?.end();
    if (outcome === 'timeout') {
        child.kill('SIGKILL');
        throw new Error(`the test server did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM`);
    }
    return outcome;
}
