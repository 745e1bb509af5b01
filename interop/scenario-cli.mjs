// The command line both TypeScript scenario programs share (v1 in typescript/, v2 in
// typescript-v2/): `--describe`, or `--scenario NAME --revision REV [--transport stdio|http]
// -- SERVER_COMMAND_OR_URL`; one JSON report on stdout, exit 2 with a message on any error.
import { parseArgs } from 'node:util';

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
