// Scenarios that stop a call with the official TypeScript SDK (npm `@modelcontextprotocol/sdk`)
// and report what happened.
//
// One run = one scenario, one revision, one transport, against a fresh `mcp-testserver`. The
// program starts the server through the SDK's own stdio transport, calls the `slow` tool, stops
// the call the scenario's way, waits until the call would have finished on its own, and then asks
// the server (on the same connection) for its `transcript` and `violations`. It prints one JSON
// object on stdout (interop/README.md, "client report"); interop/matrix.py turns the transcript
// into facts. `--describe` prints what this SDK supports instead.

import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { installRetyping, retypingScenarios, runCli } from '../scenario-cli.mjs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

// The slow call every scenario stops: 15 steps of 200 ms, so 3 s if nobody stops it.
const SLOW = { name: 'slow', arguments: { steps: 15, step_ms: 200 } };
// When an explicit stop (AbortController.abort()) happens, after the call started.
const STOP_AFTER_MS = 600;
// The timeout of the timeout-based scenarios.
const TIMEOUT_MS = 700;
// The maximum total time of the `maxTotalTimeout` scenario.
const MAX_TOTAL_MS = 1100;
// An idle timeout longer than the whole slow call.
const LONG_TIMEOUT_MS = 10_000;
// The text of the `echo` call each program makes as soon as the caller has control back.
const RESUMED_MARKER = 'caller resumed';
// How long after the call started the transcript is read: past the slow call's natural end.
const SETTLE_MS = 3600;
// The revisions the matrix covers (the test server's two).
const REVISIONS = ['2025-11-25', '2026-07-28'];

// A progress callback: the SDK sends a progress token only when one is given.
const onprogress = () => {};

/** Runs `callTool` with `options` and describes how it ended, as the caller saw it. */
async function callAndDescribe(client, options) {
    try {
        const result = await client.callTool(SLOW, CallToolResultSchema, options);
        return `completed: ${result.content[0].text}`;
    } catch (error) {
        return `${error.constructor.name}: ${error.message}`;
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
    ...retypingScenarios(callAndDescribe, { timeout: TIMEOUT_MS, longTimeout: LONG_TIMEOUT_MS })
};

// The installed SDK's version, from its manifest (its `exports` map hides `package.json`).
function sdkVersion() {
    const manifest = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
    return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

function describe() {
    return {
        sdk: 'typescript',
        package: '@modelcontextprotocol/sdk',
        version: sdkVersion(),
        revisions: REVISIONS.filter(revision => SUPPORTED_PROTOCOL_VERSIONS.includes(revision)),
        transports: ['stdio', 'http'],
        scenarios: Object.keys(SCENARIOS)
    };
}

async function toolJson(client, name) {
    const result = await client.callTool({ name, arguments: {} }, CallToolResultSchema, { timeout: 10_000 });
    return JSON.parse(result.content[0].text);
}

async function run(scenario, revision, transportName, server) {
    if (revision !== 'default' && !SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) {
        throw new Error(`this SDK does not speak ${revision} (it supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    // stdio: the SDK starts the server command; http: the runner started it and passes its URL.
    const transport =
        transportName === 'stdio'
            ? new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: 'inherit' })
            : new StreamableHTTPClientTransport(new URL(server[0]));
    const client = new Client({ name: 'mcp-interop', version: '0.1.0' });
    // The SDK offers no way to pick the revision: it proposes its latest and accepts what the
    // server answers, so a forced revision is checked after the handshake.
    await client.connect(transport, { timeout: 10_000 });
    installRetyping(transport);
    const report = { scenario, revision, transport: transportName };
    const started = Date.now();
    report.caller_saw = await SCENARIOS[scenario](client);
    // A marker in the transcript: whatever the SDK had written by now precedes it.
    await client.callTool({ name: 'echo', arguments: { text: RESUMED_MARKER } }, CallToolResultSchema, { timeout: 10_000 });
    await sleep(Math.max(0, SETTLE_MS - (Date.now() - started)));
    report.transcript = await toolJson(client, 'transcript');
    report.violations = await toolJson(client, 'violations');
    await client.close();
    return report;
}

runCli({ scenarios: SCENARIOS, describe, run });
