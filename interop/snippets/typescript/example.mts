// An example of a TypeScript snippet on mcp_snippet.ts: a `wait_gate` call that returns once the
// snippet opens the gate. `.mts`, an ES module wherever it lies, so top-level `await` works.
// `run-snippet example.mts [stdio|http]`; interop/snippets/run_examples.py runs it.

import { openGate, textOf, withClient, type Transport } from 'mcp-snippet';

const transport = (process.argv[2] ?? 'stdio') as Transport;
await withClient(transport, async client => {
    const waiting = client.callTool({ name: 'wait_gate', arguments: { gate: 'go' } });
    console.log(await openGate(client, 'go'));
    console.log(textOf(await waiting));
});
