// Scenarios that stop a call with the official TypeScript SDK (npm `@modelcontextprotocol/sdk`)
// and report what happened.
//
// One run = one scenario, one revision, one transport, against a fresh `mcp-testserver`. The
// program starts the server through the SDK's own stdio transport, calls the `slow` tool, stops
// the call the scenario's way, waits until the call would have finished on its own, and then asks
// the server (on the same connection) for its `transcript` and `violations`. It prints one JSON
// object on stdout (interop/README.md, "client report"); interop/matrix.py turns the transcript
// into facts. `--describe` prints what this SDK supports instead. The timeline, the shared
// scenarios and the run around them are in ../scenario-cli.mjs; this file is only what is v1's own.

import { readFileSync } from 'node:fs';

import { LONG_TIMEOUT_MS, REVISIONS, SLOW, TIMEOUT_MS, retypingScenarios, runCli, runSdkScenario, sdkScenarios } from '../scenario-cli.mjs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** v1's `callTool` takes the result schema before the options. */
const callTool = (client, params, options) => client.callTool(params, CallToolResultSchema, options);

/** Runs `callTool` with `options` and describes how it ended, as the caller saw it. */
async function callAndDescribe(client, options) {
    try {
        const result = await callTool(client, SLOW, options);
        return `completed: ${result.content[0].text}`;
    } catch (error) {
        return `${error.constructor.name}: ${error.message}`;
    }
}

const SCENARIOS = {
    ...sdkScenarios(callAndDescribe),
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
    return runSdkScenario({ client, transport, callTool, scenarios: SCENARIOS, scenario, revision, transportName });
}

runCli({ scenarios: SCENARIOS, describe, run });
