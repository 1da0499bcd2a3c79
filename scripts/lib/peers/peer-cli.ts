// Bench-only command-line wrapper shared by the peer dedup programs: parses
// `<input> <output> [--max-links N]`, runs the peer, prints its PeerSummary as
// one JSON line on stdout. Does no dedup itself.

import { parseArgs } from 'node:util';
import type { PeerSummary } from './line-reader.js';

export type PeerRun = (input: string, output: string, maxLinks: number) => Promise<PeerSummary>;

export async function peerMain(name: string, run: PeerRun, argv: string[]): Promise<void> {
  try {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { 'max-links': { type: 'string' } } });
    if (positionals.length !== 2) {
      process.stderr.write(`usage: ${name}.js <input> <output> [--max-links N]\n`);
      process.exit(2);
    }
    const max = values['max-links'] === undefined ? Infinity : Number(values['max-links']);
    const summary = await run(positionals[0]!, positionals[1]!, max);
    process.stdout.write(JSON.stringify(summary) + '\n');
  } catch (e) {
    process.stderr.write(`${name}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
