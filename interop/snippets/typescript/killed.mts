// A snippet killed mid-session: connects, makes one call, prints `ready`, then waits until its
// process group gets SIGTERM. interop/snippets/run_examples.py checks the server still wrote its
// artifacts. `run-snippet killed.mts [stdio|http]`.

import { connect, textOf, type Transport } from 'mcp-snippet';

const { client } = await connect((process.argv[2] ?? 'stdio') as Transport);
console.log(textOf(await client.callTool({ name: 'echo', arguments: { text: 'ready' } })));
await new Promise(resolve => setTimeout(resolve, 60_000));
