// docs/cli.md's options table against the real command line: for every row,
// the commands it names are exactly the commands whose --help lists that
// option (commander's own structure, built by buildProgram), so the table
// cannot drift from the CLI as commands gain options. "same" repeats the row
// above; "all but X" means every command except X.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/command-io.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const sink = { write: () => true } as unknown as CliIo['stdout'];
const io: CliIo = { stdout: sink, stderr: sink, env: {}, cwd: ROOT };

/** Every command, its name and the long flags it takes (--no-x as written). */
function commands(): Map<string, Set<string>> {
  const program = buildProgram(io, () => undefined) as Command;
  return new Map(program.commands.map((c) => [c.name(), new Set(c.options.map((o) => o.long!))]));
}

/** The options table: each row's long flags and the commands column as written. */
function tableRows(): { flags: string[]; commands: string }[] {
  const md = fs.readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const section = md.slice(md.indexOf('\n## Options\n'), md.indexOf('\n## Output and exit statuses\n'));
  const rows: { flags: string[]; commands: string }[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || !cells[1]!.startsWith('`--')) continue;
    rows.push({ flags: [...cells[1]!.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!), commands: cells[2]! });
  }
  return rows;
}

describe('docs/cli.md options table', () => {
  it('names, for every option, exactly the commands that take it', () => {
    const cmds = commands();
    const rows = tableRows();
    assert.ok(rows.length > 20, `found ${rows.length} rows`);
    let previous = '';
    const wrong: string[] = [];
    for (const row of rows) {
      const written = row.commands === 'same' ? previous : row.commands;
      previous = written;
      const all = [...cmds.keys()];
      const listed = written.startsWith('all but ')
        ? all.filter((c) => !written.slice('all but '.length).split(/,\s*/).includes(c))
        : written.split(/,\s*/);
      for (const flag of row.flags) {
        const real = all.filter((c) => cmds.get(c)!.has(flag)).sort();
        if (JSON.stringify([...listed].sort()) !== JSON.stringify(real)) wrong.push(`${flag}: table says ${written}; the CLI: ${real.join(', ')}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
