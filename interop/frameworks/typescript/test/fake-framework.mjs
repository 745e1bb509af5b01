// A framework that does not exist, for contract.test.mjs: its "MCP call" is a timer, so the
// contract's timeline, report and `process exit` parent/child can be checked without a server or
// any installed package. `FAKE_HANG=1` makes its slow run ignore the signal and last 8 s (a hung caller).
import { finalText, runFramework } from '../contract.mjs';

const adapter = {
    name: 'fake',
    package: 'fake',
    version: '0.0.0',
    mcpSdk: { package: 'none', version: '0' },
    revisions: ['default'],
    stops: { 'run abort': 'signal', 'close client': fw => fw.close(), 'process exit': 'exit' },
    unavailable: { 'tool timeout': 'the fake has none' },
    async open() {
        const listeners = new Set();
        return { listeners, close: () => listeners.forEach(stop => stop(new Error('closed'))) };
    },
    run(fw, tool, { signal }) {
        const ms = tool.name !== 'slow' ? 10 : process.env.FAKE_HANG === '1' ? 8000 : 3000;
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve(finalText(tool.arguments.text ?? 'slow done')), ms);
            if (process.env.FAKE_HANG === '1' && tool.name === 'slow') return;
            const stop = error => {
                clearTimeout(timer);
                reject(error);
            };
            fw.listeners.add(stop);
            signal.addEventListener('abort', () => stop(new Error('aborted')));
        });
    },
    close: async () => {}
};

runFramework(adapter);
