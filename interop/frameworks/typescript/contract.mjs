// The framework cell contract for TypeScript (issue 32; interop/frameworks/README.md): the command
// line, the scripted model's turns, the timeline and the report, shared by every adapter.
//
// An adapter (NAME/NAME.mjs) knows only its framework: how to open the framework's MCP objects
// with a scripted model, how to run the agent once (one tool call, then a final text), and how each
// way of stopping is done in it. It calls `runFramework(adapter)` and nothing else.
//
// The adapter object:
//   name, package, version                      what `--describe` prints as sdk/package/version
//   mcpSdk: { package, version }                the MCP client the framework pulls in
//   revisions: ['default']                      what the framework lets its SDK be made to speak
//   stops: { 'tool timeout', 'run abort', ... } the scenarios it implements (see below)
//   unavailable: { scenario: why }              the contract's ways it cannot do, and why
//   open(cell) -> fw                            connects; `cell.toolTimeoutMs` is set for `tool timeout`
//   run(fw, tool, { signal, hook }) -> text     one agent run whose scripted model calls `tool`
//                                               ({name, arguments}) and then answers `finalText(result)`;
//                                               `hook()` is to be called from the framework callback
//                                               a `callback exception` scenario throws in
//   close(fw)                                   closes what open made
// `stops[scenario]` says how the stop happens: 'signal' (the run's AbortSignal is aborted at 0.6 s),
// 'timeout' (the framework's own 0.7 s timeout; nothing to do), 'hook' (the hook throws once armed
// at 0.6 s), a function `fw => ...` called at 0.6 s (e.g. closing the client), or 'exit' (a child
// process runs the cell and exits at 0.6 s; the parent reports).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import { RESUMED_MARKER, SETTLE_MS, SLOW, STOP_AFTER_MS, TIMEOUT_MS } from '../../scenario-cli.mjs';

// The timeline's constants are the SDK programs' own (one contract module for every TypeScript
// program: ../../scenario-cli.mjs): the slow call (3 s if nobody stops it), the stop at 0.6 s, the
// 0.7 s timeout, the `echo` marker and the end at 3.6 s.
export { SLOW, STOP_AFTER_MS, TIMEOUT_MS } from '../../scenario-cli.mjs';
// The next call, made as soon as the caller has control back (a marker in the transcript).
export const ECHO = { name: 'echo', arguments: { text: RESUMED_MARKER } };
// A run before the timed one, so the framework's first-run work (lazy imports, tool listing) is
// done and the slow call starts within milliseconds of the timed run's start.
export const WARM_UP = { name: 'echo', arguments: { text: 'warm-up' } };
// A caller that does not return this long after the stop is hung.
const HUNG_AFTER_MS = 5000;
// The whole program's bound.
const BOUND_MS = 20_000;
// The scenario names of the contract, in book order.
export const SCENARIOS = ['tool timeout', 'run abort', 'task cancel', 'framework stop', 'callback exception', 'close client', 'process exit'];

/** What the scripted model answers once it has seen the tool's result (the result shows in caller_saw). */
export function finalText(result) {
    const text = typeof result === 'string' ? result : JSON.stringify(result);
    return `final answer after the tool said: ${clip(text, 160)}`;
}

/** The error thrown by an armed hook (the `callback exception` scenario). */
export class CallbackStop extends Error {
    constructor() {
        super('thrown by the callback at the stop');
        this.name = 'CallbackStop';
    }
}

export function clip(text, length = 300) {
    const flat = String(text).replace(/\s+/g, ' ');
    return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

/** How a run ended, as the caller saw it. */
export function describeError(error) {
    const name = error?.constructor?.name ?? typeof error;
    const code = error?.code === undefined ? '' : ` (code ${JSON.stringify(error.code)})`;
    return clip(`${name}${code}: ${error?.message ?? String(error)}`);
}

/** The version of an installed package, from its manifest beside `fromUrl` (exports maps hide it). */
export function installedVersion(fromUrl, name) {
    const manifest = new URL(`./node_modules/${name}/package.json`, fromUrl);
    return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

/** The MCP client a framework folder pulls in: the v1 SDK, the v2 client, or the framework's own. */
export function mcpSdkOf(fromUrl, own) {
    for (const name of ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client']) {
        try {
            return { package: name, version: installedVersion(fromUrl, name) };
        } catch {
            // not installed in this folder
        }
    }
    return own;
}

/** The server of a cell as the framework's config wants it. */
function serverOf(transport, positionals) {
    return transport === 'stdio'
        ? { transport, command: positionals[0], args: positionals.slice(1) }
        : { transport, url: positionals[0] };
}

export function runFramework(adapter) {
    main(adapter).then(
        code => process.exit(code ?? 0),
        error => {
            console.error(`${adapter.name}: error: ${error?.stack ?? error}`);
            process.exit(2);
        }
    );
}

async function main(adapter) {
    const { values, positionals } = parseArgs({
        allowPositionals: true,
        options: {
            describe: { type: 'boolean' },
            scenario: { type: 'string' },
            revision: { type: 'string', default: 'default' },
            transport: { type: 'string', default: 'stdio' },
            child: { type: 'boolean' }
        }
    });
    if (values.describe) {
        console.log(JSON.stringify(describe(adapter)));
        return 0;
    }
    const scenario = values.scenario;
    // `not stopped` (every framework, not listed: the runner's baseline): the run is left alone.
    const stops = { 'not stopped': 'none', ...adapter.stops };
    if (!(scenario in stops)) {
        const why = adapter.unavailable?.[scenario];
        throw new Error(why ? `\`${scenario}\` is unavailable: ${why}` : `unknown scenario \`${scenario}\` (expected one of: ${Object.keys(adapter.stops).join(', ')})`);
    }
    if (values.transport !== 'stdio' && values.transport !== 'http') {
        throw new Error(`unsupported transport \`${values.transport}\` (expected stdio or http)`);
    }
    if (!adapter.revisions.includes(values.revision)) {
        throw new Error(`${adapter.name} speaks only ${adapter.revisions.join(', ')} (asked for ${values.revision})`);
    }
    if (positionals.length === 0) throw new Error('after --, the server command (stdio) or URL (http) is required');
    setTimeout(() => {
        console.error(`${adapter.name}: error: gave up after ${BOUND_MS / 1000} s`);
        process.exit(2);
    }, BOUND_MS).unref();
    const cell = { scenario, revision: values.revision, server: serverOf(values.transport, positionals) };
    cell.toolTimeoutMs = stops[scenario] === 'timeout' ? TIMEOUT_MS : null;
    let report;
    if (stops[scenario] === 'exit') {
        if (values.child) return childCell(adapter, cell);
        report = await parentCell(cell);
    } else {
        report = await cellRun(adapter, cell, stops[scenario]);
    }
    console.log(JSON.stringify({ scenario, revision: values.revision, transport: values.transport, ...report, transcript: null }));
    return 0;
}

function describe(adapter) {
    const scenarios = SCENARIOS.filter(name => name in adapter.stops);
    const unavailable = Object.fromEntries(SCENARIOS.filter(name => !(name in adapter.stops) && adapter.unavailable?.[name]).map(name => [name, adapter.unavailable[name]]));
    return {
        sdk: adapter.name,
        package: adapter.package,
        version: adapter.version,
        framework: true,
        mcp_sdk: adapter.mcpSdk,
        revisions: adapter.revisions,
        transports: ['stdio', 'http'],
        scenarios,
        unavailable
    };
}

/** One cell in this process: open, run the slow call, stop it at 0.6 s, the next call, settle. */
async function cellRun(adapter, cell, stop) {
    const fw = await adapter.open(cell);
    await adapter.run(fw, WARM_UP, { signal: new AbortController().signal, hook: () => {} });
    const controller = new AbortController();
    const report = { caller_saw: null, stopped_at_ms: null, returned_at_ms: null, next_call: null };
    let armed = false;
    const hook = () => {
        if (armed) {
            armed = false;
            report.stopped_at_ms = Date.now();
            throw new CallbackStop();
        }
    };
    const started = Date.now();
    let timer;
    if (stop === 'none') {
        // nothing stops the run
    } else if (stop === 'timeout') {
        // A lower bound: the timeout starts when the framework sends the call (the runner may use
        // the recorded tools/call + timeout_ms instead).
        report.stopped_at_ms = started + TIMEOUT_MS;
        report.timeout_ms = TIMEOUT_MS;
    } else {
        timer = setTimeout(async () => {
            if (stop === 'hook') {
                armed = true;
                return;
            }
            report.stopped_at_ms = Date.now();
            if (stop === 'signal') controller.abort();
            else await stop(fw);
        }, STOP_AFTER_MS);
    }
    const outcome = adapter.run(fw, SLOW, { signal: controller.signal, hook }).then(
        text => `completed: ${clip(text)}`,
        error => describeError(error)
    );
    const hung = Symbol('hung');
    // The caller is hung when it has not returned HUNG_AFTER_MS after the stop (or after the due stop).
    const deadline = sleep(stop === 'none' ? SETTLE_MS + 1000 : STOP_AFTER_MS + HUNG_AFTER_MS + 100, hung, { ref: false });
    const saw = await Promise.race([outcome, deadline]);
    clearTimeout(timer);
    if (saw === hung) {
        report.caller_saw = stop === 'none' ? 'hung: the run had not returned 4.6 s after its start' : 'hung: the run had not returned 5 s after the stop';
        report.next_call = 'not tried: the caller never got control back';
    } else {
        report.returned_at_ms = Date.now();
        report.caller_saw = saw;
        if (report.stopped_at_ms === null && stop !== 'none') report.caller_saw += ' (returned before any stop)';
        report.next_call = await nextCall(adapter, fw);
    }
    await sleep(Math.max(0, started + SETTLE_MS - Date.now()));
    await Promise.race([adapter.close(fw).catch(() => {}), sleep(2000)]);
    return report;
}

/** The echo call through the same framework objects: a second scripted run. */
async function nextCall(adapter, fw) {
    try {
        const text = await Promise.race([
            adapter.run(fw, ECHO, { signal: new AbortController().signal, hook: () => {} }),
            sleep(3000).then(() => {
                throw new Error('no answer within 3 s');
            })
        ]);
        return text.includes(RESUMED_MARKER) ? 'ok' : `failed: ${clip(text, 200)}`;
    } catch (error) {
        return `failed: ${describeError(error)}`;
    }
}

/** `process exit`, the child: runs the call and exits the process at 0.6 s, saying when on stdout. */
async function childCell(adapter, cell) {
    const fw = await adapter.open(cell);
    await adapter.run(fw, WARM_UP, { signal: new AbortController().signal, hook: () => {} });
    setTimeout(() => {
        process.stdout.write(`${JSON.stringify({ stopped_at_ms: Date.now() })}\n`, () => process.exit(0));
    }, STOP_AFTER_MS);
    await adapter.run(fw, SLOW, { signal: new AbortController().signal, hook: () => {} }).catch(() => {});
    process.stdout.write(`${JSON.stringify({ returned_before_exit: true })}\n`);
    await sleep(10_000);
    return 0;
}

/** `process exit`, the parent: runs this program again as a child and reports what it saw. */
async function parentCell(cell) {
    const started = Date.now();
    const argv = [...process.execArgv, process.argv[1], ...process.argv.slice(2)];
    const dashes = argv.indexOf('--');
    argv.splice(dashes, 0, '--child');
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', chunk => (out += chunk));
    const code = await new Promise(resolve => child.on('exit', resolve));
    const exitedAt = Date.now();
    const lines = out.split('\n').filter(Boolean).map(line => JSON.parse(line));
    const stopped = lines.find(line => 'stopped_at_ms' in line);
    await sleep(Math.max(0, started + SETTLE_MS - Date.now()));
    return {
        caller_saw: lines.some(line => line.returned_before_exit)
            ? 'the run returned before the exit'
            : `the process exited at the stop (code ${code})`,
        stopped_at_ms: stopped?.stopped_at_ms ?? null,
        returned_at_ms: exitedAt,
        next_call: 'not tried: the process exited'
    };
}
