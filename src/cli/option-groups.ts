// The option groups the `drum` commands share (state, input reading,
// canonical policy, store and memory), the examples block of a command's
// help, and the shape of an action wrapper. Each group is a list of
// [flags, description] declared in order. Declares options only: main.ts
// parses and runs, options.ts resolves the values.
// REQUIRES: commander Commands.

import type { Command } from 'commander';

/** Wraps a command's action: runs it and hands its exit status on. */
export type Act = <A extends unknown[]>(fn: (...a: A) => Promise<number>) => (...a: A) => Promise<void>;

/** Options as [flags, description], in the order the help lists them. */
type OptionList = readonly (readonly [flags: string, description: string])[];

/** A function that declares `list` on a command and returns the command. */
function group(list: OptionList): (c: Command) => Command {
  return (c) => list.reduce((cmd, [flags, description]) => cmd.option(flags, description), c);
}

export const addState = group([['--state <dir>', 'state directory (default: $DRUM_STATE or ./drum-state)']]);

export const addRead = group([
  ['--format <fmt>', 'input format: auto|lines|tsv|warc (auto detects gzip, WARC and TSV)'],
  ['--links <which>', 'WARC: nav (navigation links) | all (embeds too)'],
  ['--warc-links <src>', 'WARC: links from html | metadata (Heritrix outlink:) | both'],
]);

export const addPolicy = group([
  ['--canonical <mode>', 'default (documented rules) | none (dedupe exact lines)'],
  ['--profile <name>', "rule list: drum (default) | heritrix | ia | nutch | w3lib | safebrowsing (another crawler's keys)"],
  ['--rules <file>', 'user rules (strip-param, regex; per host or global) applied after the profile'],
  ['--surt', 'key by the SURT form, com,example)/path?query (--profile ia always does)'],
  ['--strip-www', 'policy: strip a leading www. from hosts'],
  ['--fold-https', 'policy: treat http: as https:'],
  ['--strip-index', 'policy: strip index.html, index.php, default.aspx, ...'],
  ['--lowercase-path', 'policy: lowercase the path'],
  ['--max-line-bytes <n>', 'reject lines longer than n bytes as too-long (default 2048)'],
]);

export const addStore = group([
  ['--memory <size>', 'RAM budget of the whole process, e.g. 256MiB, 1g; at least 166MiB + 30MiB a worker (default 256MiB)'],
  ['--buckets <k>', 'number of buckets, a power of two; fixed when the store is created (default 64)'],
  ['--host-bits <h>', 'key bits taken from the host fingerprint (0..32); fixed when the store is created (default 24)'],
  ['--cache-entries <n>', 'hot-URL cache entries, 0 disables (default 2^16)'],
  ['--recent-entries <n>', 'recently-added table entries, 0 disables (default 2^18)'],
  ['--line-memo-entries <n>', 'line memo entries per parsing thread, 0 disables (default 2^20)'],
  ['--bloom <mode>', 'bloom filter: off | gate (exact) | lossy (may drop new URLs) (default off)'],
  ['--bloom-bits <n>', "bloom bits per stored key of a filter built or rebuilt (default: the store's filter's, else 10, ~1% false positives)"],
  ['--workers <n>', 'worker threads for canonicalize + hash, 0 = inline (default cores-1, at most 3)'],
  ['--merge-every <n>', 'merge and commit once n URLs wait for the disk check (default: what --memory holds, ~21M at 256MiB on 2 cores, ~10M on more; docs/cli.md)'],
  ['--journal-keys <n>', 'keys the key journal holds before a fold merges them into the bucket files; 0: every round merges (default 2^18)'],
  ['--tuning <json>', 'internal limits for tests and experiments, e.g. {"bufferEntries":1024,"sortEntries":1024} (default: derived from --memory)'],
  ['--force-policy', 'open a store built with another canonical policy anyway'],
]);

export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
