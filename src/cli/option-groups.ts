// The option groups the `drum` commands share (state, input reading,
// canonical policy, store and memory), the examples block of a command's
// help, and the shape of an action wrapper. Declares options only: main.ts
// parses and runs, options.ts resolves the values.
// REQUIRES: commander Commands.

import type { Command } from 'commander';

/** Wraps a command's action: runs it and hands its exit status on. */
export type Act = <A extends unknown[]>(fn: (...a: A) => Promise<number>) => (...a: A) => Promise<void>;

const STATE_HELP = 'state directory (default: $DRUM_STATE or ./drum-state)';

export function addState(c: Command): Command {
  return c.option('--state <dir>', STATE_HELP);
}

export function addRead(c: Command): Command {
  return c
    .option('--format <fmt>', 'input format: auto|lines|tsv|warc (auto detects gzip, WARC and TSV)')
    .option('--links <which>', 'WARC: nav (navigation links) | all (embeds too)')
    .option('--warc-links <src>', 'WARC: links from html | metadata (Heritrix outlink:) | both');
}

export function addPolicy(c: Command): Command {
  return c
    .option('--canonical <mode>', 'default (documented rules) | none (dedupe exact lines)')
    .option('--profile <name>', "rule list: drum (default) | heritrix | ia | nutch | w3lib | safebrowsing (another crawler's keys)")
    .option('--rules <file>', 'user rules (strip-param, regex; per host or global) applied after the profile')
    .option('--surt', 'key by the SURT form, com,example)/path?query (--profile ia always does)')
    .option('--strip-www', 'policy: strip a leading www. from hosts')
    .option('--fold-https', 'policy: treat http: as https:')
    .option('--strip-index', 'policy: strip index.html, index.php, default.aspx, ...')
    .option('--lowercase-path', 'policy: lowercase the path')
    .option('--max-line-bytes <n>', 'reject lines longer than n bytes as too-long (default 2048)');
}

export function addStore(c: Command): Command {
  return c
    .option('--memory <size>', 'RAM budget of the whole process, e.g. 256MiB, 1g; at least 125MiB + 32MiB a worker (default 256MiB)')
    .option('--buckets <k>', 'number of buckets, a power of two; fixed when the store is created (default 64)')
    .option('--host-bits <h>', 'key bits taken from the host fingerprint (0..32); fixed when the store is created (default 24)')
    .option('--cache-entries <n>', 'hot-URL cache entries, 0 disables (default 2^16)')
    .option('--recent-entries <n>', 'recently-added table entries, 0 disables (default 2^18)')
    .option('--line-memo-entries <n>', 'line memo entries per parsing thread, 0 disables (default 2^20)')
    .option('--bloom <mode>', 'bloom filter: off | gate (exact) | lossy (may drop new URLs) (default off)')
    .option('--bloom-bits <n>', 'bloom bits per stored key (default 10, ~1% false positives)')
    .option('--workers <n>', 'worker threads for canonicalize + hash, 0 = inline (default cores-1, at most 3)')
    .option('--merge-every <n>', 'merge and commit once n URLs wait for the disk check (default: what --memory holds, ~40M at 256MiB)')
    .option('--tuning <json>', 'internal limits for tests and experiments, e.g. {"bufferEntries":1024,"sortEntries":1024} (default: derived from --memory)')
    .option('--force-policy', 'open a store built with another canonical policy anyway');
}

export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
