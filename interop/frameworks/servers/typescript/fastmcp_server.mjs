// The TypeScript server framework `fastmcp` (npm) with one tool that waits, for ../measure.py.
//
//   node fastmcp_server.mjs --events FILE [--http PORT]
//
// `slow {steps, step_ms}` waits `steps` times `step_ms` without looking at its signal, so the
// events show whether the signal fired (`signal aborted: REASON`) and whether the result is sent
// after it; `whoami` returns JSON.stringify(context.requestId).
import { appendFileSync } from 'node:fs';
import { FastMCP } from 'fastmcp';
import { z } from 'zod';

const argv = process.argv.slice(2);
const option = name => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const events = option('--events');
const note = text => appendFileSync(events, `${Date.now()} ${text}\n`);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

const server = new FastMCP({ name: 'slow', version: '1.0.0' });
server.addTool({
    name: 'slow',
    parameters: z.object({ steps: z.number(), step_ms: z.number() }),
    execute: async ({ steps, step_ms }, context) => {
        note(`started request_id=${JSON.stringify(context.requestId)}`);
        context.signal.addEventListener('abort', () => {
            const reason = context.signal.reason;
            note(`signal aborted: ${reason?.name ?? typeof reason}: ${reason?.message ?? reason}`);
        });
        for (let step = 1; step <= steps; step++) {
            await sleep(step_ms);
            note(`step ${step}`);
        }
        note('returned');
        return `done after ${steps} steps`;
    },
});
server.addTool({
    name: 'whoami',
    execute: async (_args, context) => String(JSON.stringify(context.requestId)),
});

const port = option('--http');
if (port) {
    await server.start({
        transportType: 'httpStream',
        httpStream: { port: Number(port), host: '127.0.0.1', endpoint: '/mcp' },
    });
} else {
    await server.start({ transportType: 'stdio' });
}
