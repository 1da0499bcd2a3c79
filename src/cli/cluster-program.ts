// The cluster commands of `drum` (publish, serve, follow; docs/cluster.md):
// their options and help. Their actions (cluster-commands.ts) load only when
// one runs, so other commands never load the NATS client.
// REQUIRES: the program of main.ts and its action wrapper.

import type { Command } from 'commander';
import type { CliIo } from './command-io.js';
import type { RawOptions } from './options.js';
import { addPolicy, addRead, addState, addStore, examples, type Act } from './option-groups.js';

const NATS_HELP = 'NATS server URLs, comma-separated, e.g. nats://127.0.0.1:4222,nats://127.0.0.1:4223';
/** The cluster commands (docs/cluster.md), loaded only when one runs. */
const cluster = (): Promise<typeof import('./commands/cluster-commands.js')> => import('./commands/cluster-commands.js');

export function addCluster(program: Command, io: CliIo, act: Act): void {
  const publish = program.command('publish').argument('[inputs...]', "link files (plain, TSV, .gz, WARC); none or '-' reads stdin")
    .description('canonicalize links and publish them to drum.links.<shard> on NATS JetStream (shard from the host)');
  addPolicy(addRead(publish))
    .requiredOption('--nats <urls>', NATS_HELP)
    .requiredOption('--shards <n>', 'number of shards (fixed for the streams once created)')
    .option('--replicas <r>', 'stream replicas when the streams are created (default 1; 3 on a 3-node cluster)')
    .option('--rejects <file>', 'write rejected lines here (rejects.tsv format)')
    .option('--json', 'print the publish report as one JSON object')
    .option('--quiet', 'print nothing on success but what --json asks for')
    .addHelpText('after', examples(['drum publish --nats nats://127.0.0.1:4222 --shards 2 links.txt.gz']))
    .action(act(async (inputs: string[], o: RawOptions) => (await cluster()).publishCommand(inputs, o, io)));

  const serve = program.command('serve').description('run one shard: answer the links of drum.links.<shard>, publish new URLs to drum.new.<shard>');
  addStore(addPolicy(addState(serve)))
    .requiredOption('--nats <urls>', NATS_HELP)
    .requiredOption('--shard <i>', 'this shard, 0..shards-1')
    .requiredOption('--shards <n>', 'number of shards')
    .option('--replicas <r>', 'stream replicas when the streams are created (default 1)')
    .option('--max-delay <s>', 'close a round at most this many seconds after its first link (default 1)')
    .option('--round-links <n>', 'close a round once this many links wait (default 200000)')
    .option('--ack-wait <s>', 'seconds before JetStream redelivers an unacked link message (default 30)')
    .option('--no-fsync', 'skip fsync at commits: faster, NOT crash-safe (benchmarks, tests)')
    .option('--quiet', 'no line per round on stderr')
    .addHelpText('after', examples(['drum serve --nats nats://127.0.0.1:4222 --shard 0 --shards 2 --state shard-0']))
    .action(act(async (o: RawOptions) => (await cluster()).serveCommand(o, io)));

  program.command('follow').description('print the new URLs of every shard, one per line, as they are published')
    .requiredOption('--nats <urls>', NATS_HELP)
    .option('--durable <name>', 'keep the position in a durable consumer of this name (default: read from the start)')
    .option('--idle-exit <s>', 'exit once nothing arrived for this many seconds')
    .addHelpText('after', examples(['drum follow --nats nats://127.0.0.1:4222 --idle-exit 5 > new-urls.txt']))
    .action(act(async (o: RawOptions) => (await cluster()).followCommand(o, io)));
}
