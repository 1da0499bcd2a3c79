// The `drum` command line (commander): declares every command, its options
// and help text with examples, runs the chosen action and turns the outcome
// into an exit status: 0 ok, 2 usage (commander's own errors and
// DRUM_BAD_OPTION), EXIT_STATUS[code] for other DrumErrors, 1 otherwise.
// Errors print to stderr as `drum: <CODE>: <message>`. The only module that
// reads argv and the environment; actions live in commands.ts.

import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { DrumError, EXIT_STATUS, SIGNAL_EXIT_STATUS } from '../errors.js';
import type { StopReason } from './run-notes.js';
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
import type { CliIo } from './command-io.js';
import type { RawOptions } from './options.js';
import { forgetCommand } from './commands/forget-command.js';
import { compactCommand } from './commands/compact-command.js';
import { addContent } from './commands/content-command.js';
import { addDocIdCommands } from './commands/docid-commands.js';
import { addCluster } from './cluster-program.js';
import { addPolicy, addRead, addState, addStore, examples } from './option-groups.js';

/** drum's version from package.json: beside the compiled tree (dist/), else beside bin/drum. */
function readVersion(): string {
  const places = [new URL('../../../package.json', import.meta.url).pathname];
  try {
    if (process.argv[1]) places.push(join(dirname(realpathSync(process.argv[1])), '..', 'package.json'));
  } catch {
    // argv[1] is not a file (e.g. node -e); the first place is the only one
  }
  for (const file of places) {
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'drum' && pkg.version) return pkg.version;
    } catch {
      // not at this location (compiled elsewhere); try the next
    }
  }
  return 'unknown';
}

/** The commander program, noting whether commander wrote anything to stderr. */
export type DrumProgram = Command & { helpOnStderr: boolean };

/** Builds the program; `done(status)` receives each action's exit status. */
export function buildProgram(io: CliIo, done: (status: number) => void): DrumProgram {
  const program: DrumProgram = Object.assign(new Command('drum'), { helpOnStderr: false });
  program
    .description('Exact "have I seen this URL?" for web crawlers: dedupe billions of links on one machine with bounded RAM.')
    .version(readVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => {
        program.helpOnStderr = true;
        io.stderr.write(s);
      },
    })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', examples([
      'drum ingest crawl-001.txt.gz                   # new URLs -> ./drum-state/runs/<run-id>/unique-*.txt',
      'drum ingest --state /data/drum --json links.tsv',
      'drum check fresh-links.txt > new.txt           # read-only: what would be new',
      'drum runs; drum hosts --top 20; drum verify',
    ]));
  const act =
    <A extends unknown[]>(fn: (...a: A) => Promise<number>) =>
    async (...a: A): Promise<void> =>
      done(await fn(...a));

  const ingest = program.command('ingest').argument('<inputs...>', "link files (plain, TSV, .gz, WARC); '-' reads stdin")
    .description('add links to the store; write the URLs new to it to unique-NNNNN.txt in first-arrival order');
  addStore(addPolicy(addRead(addState(ingest))))
    .option('--out <dir>', 'output directory (default: <state>/runs/<run-id>/)')
    .option('--force', 'ingest inputs even if already fully ingested into this store')
    .option('--revisit-after <duration>', 'also write stored URLs last emitted at least this long ago (30d, 12h, 0s) to revisit-NNNNN.txt, once per run; reads every input')
    .option('--graph', 'TSV input: also write each row\'s (source docID, target docID) to graph-NNNNN.bin (u64 LE pairs, input order); sources are stored, not emitted; reads every input')
    .option('--json', 'print the run report as one JSON object on stdout instead of the summary')
    .option('--verbose', "also print the engine's internals: tiers, disk and IO, memory split, stages")
    .option('--quiet', 'print nothing on success')
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
    .option('--quiet', 'print nothing on success')
    .option('--no-fsync', 'skip fsync at the commit: faster, NOT crash-safe (tests)')
    .addHelpText('after', examples(['drum forget gone.txt', 'printf "http://example.com/a\\n" | drum forget', 'drum forget --host spam.example --host 10.0.0.1:8080']))
    .action(act((inputs: string[], o: RawOptions) => forgetCommand(inputs, o, io)));

  addState(program.command('stats').description('URLs stored, size, files, parameters, collision estimate, bloom, recent runs'))
    .option('--json', 'print one JSON object')
    .addHelpText('after', examples(['drum stats', 'drum stats --state /data/drum --json']))
    .action(act((o: RawOptions) => statsCommand(o, io)));

  addState(program.command('verify').description("check every store file's checksums and ordering; exit 0 when sound"))
    .option('--json', 'print the result as one JSON object')
    .option('--quiet', 'print nothing when sound')
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

  addState(program.command('repair').description('rebuild the Bloom filter or the URL log\'s index from the store, or reset a damaged run catalog (the old one is kept aside)'))
    .option('--bloom', 'rebuild the Bloom filter file from the key files')
    .option('--url-index', 'rebuild the URL log\'s index (urls/blocks.idx) from its segments')
    .option('--bloom-bits <n>', 'bits per key of the rebuilt filter (default: as before, else 10)')
    .option('--catalog', 'move the run catalog aside and rebuild it from the manifest history and the runs\' unique files')
    .option('--json', 'print the result as one JSON object')
    .addHelpText('after', examples(['drum verify || drum repair --bloom', 'drum repair --catalog --state /data/drum']))
    .action(act((o: RawOptions) => repairCommand(o, io)));

  addState(program.command('upgrade').description('give a keys-only store values: a docID, first run and last emission per URL (docs/file-format.md)'))
    .option('--json', 'print the result as one JSON object')
    .addHelpText('after', examples(['drum upgrade --state /data/drum']))
    .action(act((o: RawOptions) => upgradeCommand(o, io)));

  addState(program.command('compact').description('merge the key journal into the key files and fold the pending host counts into the host table now'))
    .option('--memory <size>', 'RAM budget of the journal\'s merge (default 256MiB)')
    .option('--json', 'print the result as one JSON object')
    .option('--no-fsync', 'skip fsync at the commits: faster, NOT crash-safe (tests)')
    .addHelpText('after', examples(['drum compact --state /data/drum', 'drum compact --json | jq .journalKeys']))
    .action(act((o: RawOptions) => compactCommand(o, io)));

  addContent(program, io, act, examples);
  addCluster(program, io, act);
  addDocIdCommands(program, io, act);
  return program;
}

/** Prints an error as `drum: <CODE>: <message>` and returns its exit status. */
export function reportError(e: unknown, io: CliIo): number {
  if (e instanceof CommanderError) return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
  if (e instanceof DrumError) {
    io.stderr.write(`drum: ${e.code}: ${e.message}${e.file && !e.message.includes(e.file) ? ` (file: ${e.file})` : ''}\n`);
    return EXIT_STATUS[e.code];
  }
  const err = e as Error | undefined;
  io.stderr.write(`drum: unexpected error: ${err?.stack ?? String(e)}\n`);
  return 1;
}

/** Runs drum with `args` (argv without node and script); resolves to the exit status. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let status = 0;
  const program = buildProgram(io, (s) => {
    status = s;
  });
  try {
    await program.parseAsync(args, { from: 'user' });
    return status;
  } catch (e) {
    // `drum help` and `drum` alone both end in 'commander.help', whose exitCode follows
    // process.exitCode; help printed to stderr is the usage-error case (no command given).
    if (e instanceof CommanderError && e.code === 'commander.help') return program.helpOnStderr ? 2 : 0;
    return reportError(e, io);
  }
}

/**
 * The process side of CliIo.onStop: while a command has registered what to
 * say, SIGINT and SIGTERM (and stdout closed under it, EPIPE) run it and exit
 * with SIGNAL_EXIT_STATUS; a second signal during that exits at once.
 */
function processStops(): CliIo['onStop'] & { epipe: () => void } {
  let current: ((reason: StopReason) => void) | null = null;
  let stopping = false;
  const stop = (reason: StopReason): void => {
    const status = reason === 'EPIPE' ? (process.exitCode ?? SIGNAL_EXIT_STATUS.EPIPE) : SIGNAL_EXIT_STATUS[reason];
    if (stopping) process.exit(status);
    stopping = true;
    try {
      current?.(reason);
    } finally {
      process.exit(status);
    }
  };
  const onSigint = (): void => stop('SIGINT');
  const onSigterm = (): void => stop('SIGTERM');
  const register = (fn: (reason: StopReason) => void): (() => void) => {
    current = fn;
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
    return () => {
      if (current === fn) current = null;
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    };
  };
  return Object.assign(register, { epipe: () => stop('EPIPE') });
}

/** Entry point used by bin/drum: process.argv in, process.exitCode out. */
export async function main(argv: string[]): Promise<void> {
  const onStop = processStops();
  for (const s of [process.stdout, process.stderr]) {
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      onStop.epipe(); // reader went away (e.g. `| head`): stop quietly
    });
  }
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), onStop };
  process.exitCode = await run(argv.slice(2), io);
}
