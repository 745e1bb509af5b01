// Scenarios that stop a call with the official TypeScript SDK v2 (npm `@modelcontextprotocol/client`)
// and report what happened.
//
// The same contract as ../typescript/scenarios.mjs (interop/README.md, "The scenario program
// contract"): one run = one scenario, one revision, one transport, against a fresh
// `mcp-testserver`; the program calls the `slow` tool, stops the call the scenario's way, waits
// until the call would have finished on its own, then asks the server (on the same connection)
// for its `transcript` and `violations`, and prints one JSON client report on stdout.
// `--describe` prints what this SDK supports instead.
//
// What differs from v1, read from the installed package (dist/*.d.mts): `callTool(params,
// options)` takes no result schema; the revision is chosen with `ClientOptions.versionNegotiation`
// (`mode: 'legacy'`, the default, is the 2025 `initialize` handshake; `{ pin: '2026-07-28' }`
// probes `server/discover` and requires that revision); errors are `SdkError`s with a `code`.

import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { installRetyping, retypingScenarios, runCli } from '../scenario-cli.mjs';

import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

// The slow call every scenario stops: 15 steps of 200 ms, so 3 s if nobody stops it.
const SLOW = { name: 'slow', arguments: { steps: 15, step_ms: 200 } };
// When an explicit stop (AbortController.abort()) happens, after the call started.
const STOP_AFTER_MS = 600;
// The timeout of the timeout-based scenarios.
const TIMEOUT_MS = 700;
// The maximum total time of the `maxTotalTimeout` scenarios.
const MAX_TOTAL_MS = 1100;
// An idle timeout longer than the whole slow call.
const LONG_TIMEOUT_MS = 10_000;
// The text of the `echo` call each program makes as soon as the caller has control back.
const RESUMED_MARKER = 'caller resumed';
// How long after the call started the transcript is read: past the slow call's natural end.
const SETTLE_MS = 3600;
// The revision v2 reaches through `server/discover` (its "modern era"); the handshake revision it
// proposes by default is the SDK's own LATEST_PROTOCOL_VERSION.
const MODERN_REVISION = '2026-07-28';
// The revisions the matrix covers (the test server's two).
const REVISIONS = ['2025-11-25', '2026-07-28'];

// A progress callback: the SDK sends a progress token only when one is given.
const onprogress = () => {};

/** Runs `callTool` with `options` and describes how it ended, as the caller saw it. */
async function callAndDescribe(client, options) {
    try {
        const result = await client.callTool(SLOW, options);
        return `completed: ${result.content[0].text}`;
    } catch (error) {
        const code = error.code === undefined ? '' : ` (code ${JSON.stringify(error.code)})`;
        return `${error.constructor.name}${code}: ${error.message}`;
    }
}

const SCENARIOS = {
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
        callAndDescribe(client, { timeout: LONG_TIMEOUT_MS, resetTimeoutOnProgress: true, maxTotalTimeout: MAX_TOTAL_MS }),
    // The same maximum as the `maxTotalTimeout` row, as a timed `signal` instead (Node's
    // `AbortSignal.timeout`), with the progress-reset idle timeout kept.
    'AbortSignal.timeout as the maximum': client =>
        callAndDescribe(client, { timeout: TIMEOUT_MS, resetTimeoutOnProgress: true, onprogress, signal: AbortSignal.timeout(MAX_TOTAL_MS) }),
    ...retypingScenarios(callAndDescribe, { timeout: TIMEOUT_MS, longTimeout: LONG_TIMEOUT_MS })
};

// The installed client's version, from its manifest (its `exports` map hides `package.json`).
function sdkVersion() {
    const manifest = new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url);
    return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

// The revisions of the matrix this SDK reaches: its handshake revision and its modern one.
function spokenRevisions() {
    return REVISIONS.filter(revision => revision === LATEST_PROTOCOL_VERSION || revision === MODERN_REVISION);
}

function describe() {
    return {
        sdk: 'typescript-v2',
        package: '@modelcontextprotocol/client',
        version: sdkVersion(),
        revisions: spokenRevisions(),
        transports: ['stdio', 'http'],
        scenarios: Object.keys(SCENARIOS)
    };
}

/** The `versionNegotiation` option that makes the client speak `revision`. */
function negotiation(revision) {
    if (revision === 'default') return undefined;
    if (!spokenRevisions().includes(revision)) {
        throw new Error(`this SDK does not speak ${revision} (it reaches ${spokenRevisions().join(', ')})`);
    }
    return revision === MODERN_REVISION ? { mode: { pin: MODERN_REVISION } } : { mode: 'legacy' };
}

async function toolJson(client, name) {
    const result = await client.callTool({ name, arguments: {} }, { timeout: 10_000 });
    return JSON.parse(result.content[0].text);
}

async function run(scenario, revision, transportName, server) {
    // stdio: the SDK starts the server command; http: the runner started it and passes its URL.
    const transport =
        transportName === 'stdio'
            ? new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: 'inherit' })
            : new StreamableHTTPClientTransport(new URL(server[0]));
    const client = new Client({ name: 'mcp-interop', version: '0.1.0' }, { versionNegotiation: negotiation(revision) });
    await client.connect(transport, { timeout: 10_000 });
    installRetyping(transport);
    const negotiated = client.getNegotiatedProtocolVersion();
    if (revision !== 'default' && negotiated !== revision) {
        throw new Error(`asked for ${revision}, the client negotiated ${negotiated}`);
    }
    const report = { scenario, revision, transport: transportName };
    const started = Date.now();
    report.caller_saw = await SCENARIOS[scenario](client);
    // A marker in the transcript: whatever the SDK had written by now precedes it.
    await client.callTool({ name: 'echo', arguments: { text: RESUMED_MARKER } }, { timeout: 10_000 });
    await sleep(Math.max(0, SETTLE_MS - (Date.now() - started)));
    report.transcript = await toolJson(client, 'transcript');
    report.violations = await toolJson(client, 'violations');
    await client.close();
    return report;
}

runCli({ scenarios: SCENARIOS, describe, run });
