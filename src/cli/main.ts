// The `drum` command line (commander): builds the program (its own help
// here; each group of commands declared by its own module: store-program.ts,
// commands/content-command.ts, cluster-program.ts, commands/docid-commands.ts),
// runs the chosen action and turns the outcome into an exit status: 0 ok,
// 2 usage (commander's own errors and DRUM_BAD_OPTION), EXIT_STATUS[code]
// for other DrumErrors, 1 otherwise. Errors print to stderr as
// `drum: <CODE>: <message>`. The only module that reads argv and the
// environment; actions live in commands/.
// REQUIRES: main() runs once per process (it installs the stdout and stderr
// error handlers); run() and buildProgram() take all their I/O from a CliIo.

import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { DrumError, EXIT_STATUS, SIGNAL_EXIT_STATUS } from '../errors.js';
import type { StopReason } from './run-notes.js';
import { addStoreCommands } from './store-program.js';
import type { CliIo } from './command-io.js';
import { addContent } from './commands/content-command.js';
import { addDocIdCommands } from './commands/docid-commands.js';
import { addCluster } from './cluster-program.js';
import { examples, type Act } from './option-groups.js';

/** drum's version from package.json: beside the compiled tree (dist/src/cli/ or the bundle's dist/cli/), else beside bin/drum. */
function readVersion(): string {
  const places = ['../../../package.json', '../../package.json'].map((p) => new URL(p, import.meta.url).pathname);
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
  const program = newProgram(io);
  const act: Act =
    <A extends unknown[]>(fn: (...a: A) => Promise<number>) =>
    async (...a: A): Promise<void> =>
      done(await fn(...a));
  addStoreCommands(program, io, act);
  addContent(program, io, act, examples);
  addCluster(program, io, act);
  addDocIdCommands(program, io, act);
  return program;
}

/** The program without its commands: name, description, version, output to `io`, top-level help. */
function newProgram(io: CliIo): DrumProgram {
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
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), onStop };
  process.exitCode = await run(argv.slice(2), io);
}
