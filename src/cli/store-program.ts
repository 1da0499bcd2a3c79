// The store commands of `drum` (ingest, check, canonicalize, forget, stats,
// verify, runs, hosts, repair, upgrade, compact; docs/cli.md): their arguments,
// options and help with examples, declared in the order `drum --help` lists
// them. Their actions live in commands/store-commands.ts,
// commands/forget-command.ts and commands/compact-command.ts. Does not parse argv or run anything (main.ts
// does).
// REQUIRES: the program of main.ts and its action wrapper.

import type { Command } from 'commander';
import type { CliIo } from './command-io.js';
import type { RawOptions } from './options.js';
import {
  canonicalizeCommand,
  checkCommand,
  hostsCommand,
  ingestCommand,
  repairCommand,
  upgradeCommand,
  runsCommand,
  statsCommand,
  verifyCommand,
} from './commands/store-commands.js';
import { forgetCommand } from './commands/forget-command.js';
import { compactCommand } from './commands/compact-command.js';
import { addPolicy, addRead, addState, addStore, examples, type Act } from './option-groups.js';

/** Declares every store command on `program`, in help order. */
export function addStoreCommands(program: Command, io: CliIo, act: Act): void {
  addIngest(program, io, act);
  addCheck(program, io, act);
  addCanonicalize(program, io, act);
  addForget(program, io, act);
  addStoreReports(program, io, act);
  addStoreRepairs(program, io, act);
}

/** `drum ingest`: add links, write the new URLs. */
function addIngest(program: Command, io: CliIo, act: Act): void {
  const ingest = program.command('ingest').argument('<inputs...>', "link files (plain, TSV, .gz, WARC); '-' reads stdin")
    .description('add links to the store; write the URLs new to it to unique-NNNNN.txt in first-arrival order');
  addStore(addPolicy(addRead(addState(ingest))))
    .option('--out <dir>', 'output directory (default: <state>/runs/<run-id>/)')
    .option('--force', 'ingest inputs even if already fully ingested into this store')
    .option('--revisit-after <duration>', 'also write stored URLs last emitted at least this long ago (30d, 12h, 0s) to revisit-NNNNN.txt, once per run; reads every input')
    .option('--graph', 'TSV input: also write each row\'s (source docID, target docID) to graph-NNNNN.bin (u64 LE pairs, input order); sources are stored, not emitted; reads every input')
    .option('--json', 'print the run report as one JSON object on stdout instead of the summary')
    .option('--verbose', "also print the engine's internals: tiers, disk and IO, memory split, stages")
    .option('--quiet', 'print nothing on success but what --json asks for')
    .option('--no-progress', 'no progress line on stderr (it is shown only on a terminal)')
    .option('--no-fsync', 'skip fsync at commits: faster, NOT crash-safe (benchmarks, tests)')
    .option('--no-values', 'create a keys-only store: no docIDs, first run or last emission per URL; fixed when the store is created (drum upgrade adds them)')
    .addHelpText('after', examples([
      'drum ingest links.txt',
      'drum ingest --memory 1GiB --bloom gate part-*.tsv.gz',
      'zcat links.gz | drum ingest --out new-urls/ -',
      'drum ingest --json --quiet links.txt | jq .uniqueUrls',
      'drum ingest --canonical none --state raw-state urls.txt   # exact-bytes dedup',
    ]))
    .action(act((inputs: string[], o: RawOptions) => ingestCommand(inputs, o, io)));
}

/** `drum check`: the URLs not yet stored, read-only. */
function addCheck(program: Command, io: CliIo, act: Act): void {
  const check = program.command('check').argument('[inputs...]', "link files; none or '-' reads stdin")
    .description('read-only: print the URLs not yet in the store, in input order; adds nothing');
  addPolicy(addRead(addState(check)))
    .option('--memory <size>', 'RAM budget of the whole process (default 256MiB)')
    .option('--workers <n>', 'worker threads for canonicalize + hash')
    .option('--force-policy', 'check against a store built with another canonical policy anyway')
    .option('--quiet', 'no summary line on stderr')
    .option('--verbose', 'also print the state directory, the time taken and the rate on stderr')
    .addHelpText('after', examples(['drum check links.txt > new.txt', 'cat links.txt | drum check --state /data/drum | wc -l']))
    .action(act((inputs: string[], o: RawOptions) => checkCommand(inputs, o, io)));
}

/** `drum canonicalize`: each line canonicalized, no store. */
function addCanonicalize(program: Command, io: CliIo, act: Act): void {
  const canon = program.command('canonicalize').argument('[inputs...]', "link files; none or '-' reads stdin")
    .description('print each input line canonicalized, or "!reject<TAB><reason>"; no store needed');
  addPolicy(addRead(canon))
    .addHelpText('after', examples([
      'drum canonicalize links.txt > canonical.txt',
      "printf 'HTTP://Example.COM:80/a/../b?utm_source=x\\nmailto:me@x\\n' | drum canonicalize",
      'drum canonicalize --strip-www --fold-https links.txt | sort | uniq -c | sort -rn | head',
      'drum canonicalize --profile nutch --surt links.txt',
    ]))
    .action(act((inputs: string[], o: RawOptions) => canonicalizeCommand(inputs, o, io)));
}

/** `drum forget`: remove URLs (or whole hosts) from the store. */
function addForget(program: Command, io: CliIo, act: Act): void {
  const forget = program.command('forget').argument('[inputs...]', "files of URLs to forget (as ingest reads them); '-' or none reads stdin")
    .description('remove URLs from the store in one merge: each is new again to the next ingest');
  addRead(addState(forget))
    .option('--host <host>', 'forget every URL of this exact host[:port] (repeatable; needs a store with per-URL values)', (v: string, acc: string[] = []) => [...acc, v])
    .option('--out <dir>', 'where forgotten.txt and rejects.tsv go (default: <state>/runs/<run-id>/)')
    .option('--memory <size>', 'RAM budget (default 256MiB)')
    .option('--workers <n>', 'worker threads for canonicalize + hash')
    .option('--bloom <mode>', 'gate | lossy: rebuild the store\'s Bloom filter without the forgotten keys; off (default): drop it')
    .option('--bloom-bits <n>', 'bloom bits per stored key of the rebuilt filter (default 10)')
    .option('--json', 'print the result as one JSON object')
    .option('--quiet', 'print nothing on success but what --json asks for')
    .option('--no-fsync', 'skip fsync at the commit: faster, NOT crash-safe (tests)')
    .addHelpText('after', examples(['drum forget gone.txt', 'printf "http://example.com/a\\n" | drum forget', 'drum forget --host spam.example --host 10.0.0.1:8080']))
    .action(act((inputs: string[], o: RawOptions) => forgetCommand(inputs, o, io)));
}

/** `drum stats`, `verify`, `runs`, `hosts`: what the store holds, read-only. */
function addStoreReports(program: Command, io: CliIo, act: Act): void {
  addState(program.command('stats').description('URLs stored, size, files, parameters, collision estimate, bloom, recent runs'))
    .option('--json', 'print one JSON object')
    .addHelpText('after', examples(['drum stats', 'drum stats --state /data/drum --json']))
    .action(act((o: RawOptions) => statsCommand(o, io)));

  addState(program.command('verify').description("check every store file's checksums and ordering; exit 0 when sound"))
    .option('--json', 'print the result as one JSON object')
    .option('--quiet', 'print nothing when sound but what --json asks for')
    .addHelpText('after', examples(['drum verify && echo sound', 'drum verify --state /data/drum --json']))
    .action(act((o: RawOptions) => verifyCommand(o, io)));

  addState(program.command('runs').description('the run history, newest first'))
    .option('--limit <n>', 'how many runs (default 20)')
    .option('--json', 'print a JSON array of run records')
    .addHelpText('after', examples(['drum runs', 'drum runs --limit 5 --json']))
    .action(act((o: RawOptions) => runsCommand(o, io)));

  addState(program.command('hosts').description('the hosts with most unique URLs in the store'))
    .option('--top <n>', 'how many hosts (default 20)')
    .option('--json', 'print a JSON array of {host, uniqueUrls}')
    .addHelpText('after', examples(['drum hosts --top 50', 'drum hosts --json | jq -r ".[].host"']))
    .action(act((o: RawOptions) => hostsCommand(o, io)));
}

/** `drum repair`, `upgrade` and `compact`: rebuild derived files, give a keys-only store values, do the deferred merges now. */
function addStoreRepairs(program: Command, io: CliIo, act: Act): void {
  addState(program.command('repair').description('rebuild the Bloom filter or the URL log\'s index from the store, or reset a damaged run catalog (the old one is kept aside)'))
    .option('--bloom', 'rebuild the Bloom filter file from the key files')
    .option('--url-index', 'rebuild the URL log\'s index (urls/blocks.idx) from its segments')
    .option('--bloom-bits <n>', 'bits per key of the rebuilt filter (default: as before, else 10)')
    .option('--catalog', 'rebuild a damaged or missing run catalog (a sound one is left as it is; the old one is kept aside) from the manifest history and the runs\' report.json and unique files')
    .option('--json', 'print the result as one JSON object')
    .addHelpText('after', examples(['drum verify || drum repair --bloom', 'drum repair --catalog --state /data/drum']))
    .action(act((o: RawOptions) => repairCommand(o, io)));

  addState(program.command('upgrade').description('give a keys-only store values: a docID, first run and last emission per URL (docs/file-format.md)'))
    .option('--bloom <mode>', 'gate | lossy: rebuild the store\'s Bloom filter when the key journal is merged first; off (default): drop it then')
    .option('--bloom-bits <n>', 'bloom bits per stored key of the rebuilt filter (default: as before, else 10)')
    .option('--json', 'print the result as one JSON object')
    .addHelpText('after', examples(['drum upgrade --state /data/drum']))
    .action(act((o: RawOptions) => upgradeCommand(o, io)));

  addState(program.command('compact').description('merge the key journal into the key files and fold the pending host counts into the host table now'))
    .option('--memory <size>', 'RAM budget of the journal\'s merge (default 256MiB)')
    .option('--bloom <mode>', 'gate | lossy: rebuild the store\'s Bloom filter as the journal\'s merge streams past every key; off (default): drop it when the journal holds keys')
    .option('--bloom-bits <n>', 'bloom bits per stored key of the rebuilt filter (default: as before, else 10)')
    .option('--json', 'print the result as one JSON object')
    .option('--no-fsync', 'skip fsync at the commits: faster, NOT crash-safe (tests)')
    .addHelpText('after', examples(['drum compact --state /data/drum', 'drum compact --json | jq .journalKeys']))
    .action(act((o: RawOptions) => compactCommand(o, io)));
}
