// The framework cell contract (../contract.mjs) driven with a fake framework (fake-framework.mjs):
// the report's fields, the stop at 0.6 s, a hung caller, the `process exit` child, `--describe`.
// Run: node --test interop/frameworks/typescript/test/contract.test.mjs (about 25 s, no server,
// no packages).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const fake = new URL('./fake-framework.mjs', import.meta.url).pathname;

async function cell(scenario, env = {}) {
    const started = Date.now();
    const { stdout } = await run(process.execPath, [fake, '--scenario', scenario, '--transport', 'stdio', '--', 'no-server'], {
        env: { ...process.env, ...env }
    });
    return { report: JSON.parse(stdout), started };
}

test('--describe lists the implemented ways in book order and says why the others are missing', async () => {
    const { stdout } = await run(process.execPath, [fake, '--describe']);
    const described = JSON.parse(stdout);
    assert.equal(described.framework, true);
    assert.deepEqual(described.scenarios, ['run abort', 'close client', 'process exit']);
    assert.deepEqual(described.unavailable, { 'tool timeout': 'the fake has none' });
});

test('not stopped (the runner baseline, in no list): the run completes, nothing is stopped', async () => {
    const { report } = await cell('not stopped');
    assert.equal(report.caller_saw, 'completed: final answer after the tool said: slow done');
    assert.equal(report.stopped_at_ms, null);
    assert.equal(report.next_call, 'ok');
});

test('run abort: stopped at 0.6 s, the caller returns at once, the next call works', async () => {
    const { report, started } = await cell('run abort');
    assert.equal(report.caller_saw, 'Error: aborted');
    const stopAfter = report.stopped_at_ms - started;
    assert.ok(stopAfter >= 600 && stopAfter < 2000, `stopped ${stopAfter} ms after the start`);
    assert.ok(report.returned_at_ms - report.stopped_at_ms < 100);
    assert.equal(report.next_call, 'ok');
    assert.equal(report.transcript, null);
});

test('close client: the stop is the adapter function, called at 0.6 s', async () => {
    const { report } = await cell('close client');
    assert.equal(report.caller_saw, 'Error: closed');
    assert.equal(report.next_call, 'ok');
});

test('a caller that ignores the stop is reported hung, with no return time', async () => {
    const { report } = await cell('run abort', { FAKE_HANG: '1' });
    assert.match(report.caller_saw, /^hung: /);
    assert.equal(report.returned_at_ms, null);
    assert.match(report.next_call, /^not tried: /);
});

test('process exit: the child exits at the stop and the parent reports it', async () => {
    const { report } = await cell('process exit');
    assert.equal(report.caller_saw, 'the process exited at the stop (code 0)');
    assert.ok(report.returned_at_ms >= report.stopped_at_ms);
    assert.equal(report.next_call, 'not tried: the process exited');
});
