// The smallest --memory the docs and the help text state is the one drum
// enforces: README.md, docs/cli.md and `drum ingest --help` name the floor
// minimumMemoryBytes() computes at the default options for 0–3 workers, so a
// change to the budget that moves it fails here until the docs follow.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { minimumMemoryBytes } from '../../src/options.js';
import { Command } from 'commander';
import { addStore } from '../../src/cli/option-groups.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const read = (f: string): string => fs.readFileSync(join(ROOT, f), 'utf8');
const mib = (workers: number): number => minimumMemoryBytes({ workers }) / 2 ** 20;

describe('the memory floor as documented', () => {
  it('grows by the same step per worker, the step the docs give', () => {
    assert.deepEqual([1, 2, 3].map((w) => mib(w) - mib(w - 1)), [30, 30, 30]);
  });

  it('is the figure README.md, docs/cli.md and the --memory help state', () => {
    const [m0, m1, m2, m3] = [0, 1, 2, 3].map(mib);
    assert.ok(read('README.md').includes(`at least ${m0} MiB + 30 MiB per worker`), 'README.md');
    assert.ok(read('docs/cli.md').includes(`**${m0} MiB with \`--workers 0\`, +30 MiB per worker** (${m1}, ${m2}, ${m3} MiB with 1, 2, 3)`), 'docs/cli.md');
    const memory = addStore(new Command('ingest')).options.find((o) => o.long === '--memory');
    assert.ok(memory?.description.includes(`at least ${m0}MiB + 30MiB a worker`), 'drum ingest --help');
  });
});
