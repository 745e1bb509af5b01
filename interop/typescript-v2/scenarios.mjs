// Scenarios that stop a call with the official TypeScript SDK v2 (npm `@modelcontextprotocol/client`)
// and report what happened.
//
// The same contract as ../typescript/scenarios.mjs (interop/README.md, "The scenario program
// contract"): one run = one scenario, one revision, one transport, against a fresh
// `mcp-testserver`; the program calls the `slow` tool, stops the call the scenario's way, waits
// until the call would have finished on its own, then asks the server (on the same connection)
// for its `transcript` and `violations`, and prints one JSON client report on stdout.
// `--describe` prints what this SDK supports instead. The timeline, the shared scenarios and the
// run around them are in ../scenario-cli.mjs; this file is only what is v2's own.
//
// What differs from v1, read from the installed package (dist/*.d.mts): `callTool(params,
// options)` takes no result schema; the revision is chosen with `ClientOptions.versionNegotiation`
// (`mode: 'legacy'`, the default, is the 2025 `initialize` handshake; `{ pin: '2026-07-28' }`
// probes `server/discover` and requires that revision); errors are `SdkError`s with a `code`.

import { readFileSync } from 'node:fs';

import {
    LONG_TIMEOUT_MS,
    MAX_TOTAL_MS,
    REVISIONS,
    SLOW,
    TIMEOUT_MS,
    onprogress,
    retypingScenarios,
    runCli,
    runSdkScenario,
    sdkScenarios
} from '../scenario-cli.mjs';

import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

// The revision v2 reaches through `server/discover` (its "modern era"); the handshake revision it
// proposes by default is the SDK's own LATEST_PROTOCOL_VERSION.
const MODERN_REVISION = '2026-07-28';

const callTool = (client, params, options) => client.callTool(params, options);

/** Runs `callTool` with `options` and describes how it ended, as the caller saw it. */
async function callAndDescribe(client, options) {
    try {
        const result = await callTool(client, SLOW, options);
        return `completed: ${result.content[0].text}`;
    } catch (error) {
        const code = error.code === undefined ? '' : ` (code ${JSON.stringify(error.code)})`;
        return `${error.constructor.name}${code}: ${error.message}`;
    }
}

const SCENARIOS = {
    ...sdkScenarios(callAndDescribe),
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

async function run(scenario, revision, transportName, server) {
    // stdio: the SDK starts the server command; http: the runner started it and passes its URL.
    const transport =
        transportName === 'stdio'
            ? new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: 'inherit' })
            : new StreamableHTTPClientTransport(new URL(server[0]));
    const client = new Client({ name: 'mcp-interop', version: '0.1.0' }, { versionNegotiation: negotiation(revision) });
    await client.connect(transport, { timeout: 10_000 });
    const negotiated = client.getNegotiatedProtocolVersion();
    if (revision !== 'default' && negotiated !== revision) {
        throw new Error(`asked for ${revision}, the client negotiated ${negotiated}`);
    }
    return runSdkScenario({ client, transport, callTool, scenarios: SCENARIOS, scenario, revision, transportName });
}

runCli({ scenarios: SCENARIOS, describe, run });
