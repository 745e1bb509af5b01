/**
 * An MCP server on stdio whose tool stops as soon as its request is cancelled.
 *
 *     npm ci && npx tsx server.ts    (an MCP client starts it and speaks on its stdin and stdout)
 *
 * It logs to stderr: stdout carries the protocol.
 */
import { setImmediate as yieldToEvents, setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'archive', version: '1.0.0' });

// ANCHOR: tool
const description = 'Rebuild the index: three shards fetched in parallel, then a merge';
server.registerTool('rebuild', { description }, async ctx => {
    const signal = ctx.mcpReq.signal; // aborts on the call's cancel, and when the connection closes
    console.error('lease taken');
    try {
        await Promise.all([1, 2, 3].map(async shard => {
            console.error(`shard ${shard}: fetching`);
            try {
                await fetchShard(shard, signal); // each child gets the request's signal
            } catch (error) {
                if (signal.aborted) console.error(`shard ${shard}: stopped`);
                throw error;
            }
        }));
        for (let chunk = 1; chunk <= 5; chunk++) {
            await yieldToEvents(); // a cancel is only read while the event loop turns
            if (signal.aborted) {
                console.error(`merge: stopped before chunk ${chunk}`);
                signal.throwIfAborted();
            }
            mergeChunk(chunk); // blocking: nothing interrupts it, so check between steps
        }
        return { content: [{ type: 'text' as const, text: 'rebuilt' }] };
    } finally {
        console.error('lease released'); // every way out, the cancel included
    }
});
// ANCHOR_END: tool

await server.connect(new StdioServerTransport());

/** Stands for the real work of fetching one shard; rejects as soon as `signal` aborts. */
async function fetchShard(shard: number, signal: AbortSignal): Promise<void> {
    await sleep(2000, undefined, { signal });
    console.error(`shard ${shard}: fetched`);
}

/** Stands for one step of real blocking work. */
function mergeChunk(chunk: number): void {
    console.error(`merge: chunk ${chunk}`);
    const end = Date.now() + 500;
    while (Date.now() < end) {} // CPU work
}
