// The one contract module of every TypeScript program that drives mcp-testserver: the SDK
// scenario programs (v1 in typescript/, v2 in typescript-v2/) and the framework cells
// (frameworks/typescript/contract.mjs builds on it). It holds the timeline's constants, the command
// line `--describe`, or `--scenario NAME --revision REV [--transport stdio|http] --
// SERVER_COMMAND_OR_URL` (one JSON report on stdout, exit 2 with a message on any error), the
// scenarios every SDK program shares, the run around one SDK scenario, and the retyping relay.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

// The slow call every scenario stops: 15 steps of 200 ms, so 3 s if nobody stops it.
export const SLOW = { name: 'slow', arguments: { steps: 15, step_ms: 200 } };
// When an explicit stop (AbortController.abort()) happens, after the call started.
export const STOP_AFTER_MS = 600;
// The timeout of the timeout-based scenarios.
export const TIMEOUT_MS = 700;
// The maximum total time of the `maxTotalTimeout` scenarios.
export const MAX_TOTAL_MS = 1100;
// An idle timeout longer than the whole slow call.
export const LONG_TIMEOUT_MS = 10_000;
// The text of the `echo` call each program makes as soon as the caller has control back.
export const RESUMED_MARKER = 'caller resumed';
// How long after the call started the transcript is read: past the slow call's natural end.
export const SETTLE_MS = 3600;
// The revisions the matrix covers (the test server's two).
export const REVISIONS = ['2025-11-25', '2026-07-28'];
// A progress callback: the SDKs send a progress token only when one is given.
export const onprogress = () => {};

export function runCli({ scenarios, describe, run }) {
    main(scenarios, describe, run).then(
        () => process.exit(0),
        error => {
            console.error(`scenarios.mjs: error: ${error.message}`);
            process.exit(2);
        }
    );
}

async function main(scenarios, describe, run) {
    const { values, positionals } = parseArgs({
        allowPositionals: true,
        options: {
            describe: { type: 'boolean' },
            scenario: { type: 'string' },
            revision: { type: 'string' },
            transport: { type: 'string', default: 'stdio' }
        }
    });
    if (values.describe) {
        console.log(JSON.stringify(describe()));
        return;
    }
    if (!(values.scenario in scenarios)) {
        throw new Error(`unknown scenario \`${values.scenario}\` (expected one of: ${Object.keys(scenarios).join(', ')})`);
    }
    if (values.transport !== 'stdio' && values.transport !== 'http') {
        throw new Error(`unsupported transport \`${values.transport}\` (expected stdio or http)`);
    }
    if (!values.revision || positionals.length === 0) {
        throw new Error('--revision and, after --, the server command (stdio) or URL (http) are required');
    }
    const deadline = setTimeout(() => {
        console.error('scenarios.mjs: error: gave up after 20 s');
        process.exit(2);
    }, 20_000);
    const report = await run(values.scenario, values.revision, values.transport, positionals);
    clearTimeout(deadline);
    console.log(JSON.stringify(report));
}

/** The scenarios every SDK program has, in book order, as `callAndDescribe(client, options)` makes
 *  the program's `slow` call with the SDK's request options and describes how it ended. */
export function sdkScenarios(callAndDescribe) {
    return {
        'not stopped': client => callAndDescribe(client, { onprogress }),
        'AbortSignal': client => {
            const controller = new AbortController();
            setTimeout(() => controller.abort(), STOP_AFTER_MS);
            return callAndDescribe(client, { signal: controller.signal, onprogress });
        },
        'timeout': client => callAndDescribe(client, { timeout: TIMEOUT_MS, onprogress }),
        'resetTimeoutOnProgress with onprogress': client =>
            callAndDescribe(client, { timeout: TIMEOUT_MS, resetTimeoutOnProgress: true, onprogress }),
        'resetTimeoutOnProgress without onprogress': client =>
            callAndDescribe(client, { timeout: TIMEOUT_MS, resetTimeoutOnProgress: true }),
        'maxTotalTimeout': client =>
            callAndDescribe(client, { timeout: TIMEOUT_MS, resetTimeoutOnProgress: true, maxTotalTimeout: MAX_TOTAL_MS, onprogress }),
        // The documented maximum with a timeout longer than the call and no progress to trigger it.
        'maxTotalTimeout without onprogress': client =>
            callAndDescribe(client, { timeout: LONG_TIMEOUT_MS, resetTimeoutOnProgress: true, maxTotalTimeout: MAX_TOTAL_MS })
    };
}

/** One SDK scenario on a connected `client`, as both SDK programs run it: the relay, the scenario,
 *  the `echo` marker, the wait past the call's natural end, then `transcript` and `violations`
 *  read on the same connection. `callTool(client, params, options)` is the SDK's own call. */
export async function runSdkScenario({ client, transport, callTool, scenarios, scenario, revision, transportName }) {
    installRetyping(transport);
    const report = { scenario, revision, transport: transportName };
    const started = Date.now();
    report.caller_saw = await scenarios[scenario](client);
    // A marker in the transcript: whatever the SDK had written by now precedes it.
    await callTool(client, { name: 'echo', arguments: { text: RESUMED_MARKER } }, { timeout: 10_000 });
    await sleep(Math.max(0, SETTLE_MS - (Date.now() - started)));
    const toolJson = async name => JSON.parse((await callTool(client, { name, arguments: {} }, { timeout: 10_000 })).content[0].text);
    report.transcript = await toolJson('transcript');
    report.violations = await toolJson('violations');
    await client.close();
    return report;
}

// Shared by the v1 and v2 programs. What the retyping relay turns into strings while a retyping scenario's call runs, and how many
// messages it retyped: the integer id of each response, or the integer token of each progress
// notification, as a server that echoes the other JSON type would send them (see `installRetyping`).
const retype = { responseId: false, progressToken: false, count: 0 };

/** The two retyping scenarios, the same in v1 and v2. `callAndDescribe(client, options)` makes the
 *  program's `slow` call with the SDK's options and describes how it ended; `timeout` is the idle
 *  timeout that progress resets, `longTimeout` one longer than the call. */
export function retypingScenarios(callAndDescribe, { timeout, longTimeout }) {
    return {
        // A server that echoes the request id 7 as "7" (the relay retypes every response id).
        'response id echoed as a string': async client => {
            const outcome = await retyping('responseId', () => callAndDescribe(client, { timeout: longTimeout }));
            return `${outcome} (${retype.count} response ids retyped)`;
        },
        // A server that echoes the progress token 7 as "7": does the token still reach `onprogress`
        // and reset the 0.7 s timeout?
        'progress token echoed as a string': async client => {
            let calls = 0;
            const count = () => (calls += 1);
            const options = { timeout, resetTimeoutOnProgress: true, onprogress: count };
            const outcome = await retyping('progressToken', () => callAndDescribe(client, options));
            // Whether, not how often: the last notification can race the response, so counts vary.
            return `${outcome}; progress tokens retyped: ${retype.count > 0}, onprogress called: ${calls > 0}`;
        }
    };
}

/** Runs `call` with the relay retyping `what`, and reports what it retyped beside the outcome. */
async function retyping(what, call) {
    retype[what] = true;
    try {
        return await call();
    } finally {
        retype[what] = false;
    }
}

/** Puts the relay between the SDK's transport and the client, after `connect` set `onmessage`. */
export function installRetyping(transport) {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => deliver(retyped(message), extra);
}

function retyped(message) {
    if (retype.responseId && !('method' in message) && Number.isInteger(message.id)) {
        retype.count += 1;
        return { ...message, id: String(message.id) };
    }
    const token = message.params?.progressToken;
    if (retype.progressToken && message.method === 'notifications/progress' && Number.isInteger(token)) {
        retype.count += 1;
        return { ...message, params: { ...message.params, progressToken: String(token) } };
    }
    return message;
}
