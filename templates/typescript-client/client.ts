/**
 * An MCP client on the command line: it starts a server over stdio, then makes one tool call per
 * line of standard input (`TOOL {"json": "arguments"}`) and prints how each one ended.
 *
 *     npm ci && npx tsx client.ts [--idle SECS] [--total SECS] SERVER [ARGS...]
 *
 * A call gives up after `--idle` seconds without progress (default 30) or `--total` seconds in
 * all (default 300), and Ctrl-C stops it; each way sends the server `notifications/cancelled`.
 * Ctrl-C between calls, or the end of input, quits. In a terminal, Ctrl-C also reaches the
 * server: the SDK starts it in this process's group (run it under `setsid` on Linux if it must
 * not see it).
 */
import { createInterface } from 'node:readline';
import { Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

// ANCHOR: call
/** How a call ended without its result. */
class Stopped extends Error {}

/** Calls a tool until it answers, a limit passes, or `stop` aborts. Each way of stopping sends
 * `notifications/cancelled`. */
async function callTool(
    client: Client,
    name: string,
    args: Record<string, unknown>,
    limits: { idleS: number; totalS: number },
    stop: AbortSignal,
) {
    // `maxTotalTimeout` sends no cancel in 2.4.0: an AbortSignal enforces the total and cancels.
    const total = AbortSignal.timeout(limits.totalS * 1000);
    try {
        return await client.callTool({ name, arguments: args }, {
            timeout: limits.idleS * 1000,
            resetTimeoutOnProgress: true,
            onprogress: showProgress, // without one, progress resets nothing (typescript-sdk#2076)
            signal: AbortSignal.any([stop, total]),
        });
    } catch (error) {
        if (stop.aborted) throw new Stopped('stopped');
        if (total.aborted) throw new Stopped(`gave up: ${limits.totalS} s in all`);
        if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
            throw new Stopped(`gave up: no progress for ${limits.idleS} s`);
        }
        throw error;
    }
}
// ANCHOR_END: call

// ANCHOR: main
const { limits, server } = parseArgs(process.argv.slice(2));
const client = new Client({ name: 'typescript-client-template', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: server[0], args: server.slice(1) }));
const lines = createInterface({ input: process.stdin });
let running: AbortController | undefined; // the stop button of the call in progress
process.on('SIGINT', () => (running ? running.abort('stopped by the user') : lines.close()));
for await (const line of lines) {
    const call = parseCall(line);
    if (!call) {
        console.error('expected a call: TOOL {"json": "arguments"}');
        continue;
    }
    running = new AbortController();
    try {
        const result = await callTool(client, call.name, call.args, limits, running.signal);
        console.log(`${call.name}: ${textOf(result)}`);
    } catch (error) {
        console.log(`${call.name}: ${error instanceof Stopped ? '' : 'failed: '}${(error as Error).message}`);
    } finally {
        running = undefined;
    }
}
await client.close(); // closes the server's stdin
// ANCHOR_END: main

function showProgress(progress: { progress: number; total?: number; message?: string }): void {
    const total = progress.total === undefined ? '' : `/${progress.total}`;
    console.error(`  progress ${progress.progress}${total} ${progress.message ?? ''}`);
}

/** The limits and the server's command line, from this program's arguments. */
function parseArgs(args: string[]): { limits: { idleS: number; totalS: number }; server: string[] } {
    const usage = 'usage: client.ts [--idle SECS] [--total SECS] SERVER [ARGS...]';
    const limits = { idleS: 30, totalS: 300 };
    let index = 0;
    for (; index < args.length && (args[index] === '--idle' || args[index] === '--total'); index += 2) {
        const seconds = Number(args[index + 1]);
        if (!(seconds > 0)) throw new Error(`${args[index]} takes a number of seconds\n${usage}`);
        limits[args[index] === '--idle' ? 'idleS' : 'totalS'] = seconds;
    }
    if (index >= args.length) throw new Error(usage);
    return { limits, server: args.slice(index) };
}

/** `TOOL {"json": "arguments"}` (the arguments may be left out) as a call, or `undefined`. */
function parseCall(line: string): { name: string; args: Record<string, unknown> } | undefined {
    const trimmed = line.trim();
    const space = trimmed.indexOf(' ');
    const name = space < 0 ? trimmed : trimmed.slice(0, space);
    try {
        const args = JSON.parse(space < 0 ? '{}' : trimmed.slice(space + 1));
        return name && args && typeof args === 'object' && !Array.isArray(args) ? { name, args } : undefined;
    } catch {
        return undefined;
    }
}

/** The text of a result, an error result marked as such. */
function textOf(result: { content?: unknown; isError?: boolean }): string {
    const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
    const text = content.filter(part => part.type === 'text').map(part => part.text).join(' ');
    return result.isError ? `error: ${text}` : text;
}
