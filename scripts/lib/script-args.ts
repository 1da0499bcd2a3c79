// Flags of the bench-only scripts: node:util's parseArgs (strict), plus
// `--help` / `-h`, which prints the script's own header comment (what it
// does and its usage line, as the compiled file keeps it) and exits 0, and
// a one-line error for an unknown or malformed flag (exit 2) instead of a
// stack trace. Does not define any script's flags or check their values.
// REQUIRES: `scriptUrl` is the calling script's import.meta.url; its file
// opens with `//` comment lines (every file here does).

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Config = Omit<ParseArgsConfig, 'args' | 'strict'>;

/** The leading `//` comment of a script file, without the slashes. */
export function scriptHeader(path: string): string {
  const lines: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join('\n');
}

/**
 * parseArgs over `args` (default: this process's) with `config`; `--help`
 * or `-h` anywhere prints the script's header and exits 0, a flag parseArgs
 * refuses prints its message and exits 2.
 */
export function scriptArgs<C extends Config>(scriptUrl: string, config: C, args = process.argv.slice(2)): ReturnType<typeof parseArgs<C & { args: string[]; strict: true }>> {
  const path = fileURLToPath(scriptUrl);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${scriptHeader(path)}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args, strict: true as const });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    process.stderr.write(`${basename(path)}: ${why} (--help lists the flags)\n`);
    process.exit(2);
  }
}
