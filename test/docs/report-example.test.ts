// docs/report.md against a real run: `drum ingest` on the bundled
// data/archive-org-2008-outlinks.tsv.gz into a new store prints the summary
// the doc shows (run ids and the time row aside), `--json` prints a report
// with exactly the fields of the doc's worked example and its counts, and
// every field the report prints is named in the doc's tables (and every
// field the tables name is printed). Does not check times, stages or how the
// parse was shared between threads: they vary by machine and run.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const DATA = 'data/archive-org-2008-outlinks.tsv.gz';
/** The clone the doc's examples ran in. */
const DOC_CLONE = '/home/crawl/drum';
/** Fields whose keys are data (reject reasons, stage names), not documented one by one. */
const MAPS = new Set(['rejectsByReason', 'stages']);
/** Fields only some runs print (`--graph`). */
const OPTIONAL = new Set(['graph']);

const md = fs.readFileSync(join(ROOT, 'docs', 'report.md'), 'utf8');

/** A report's field paths down to its leaves: `tiers.hotCache.hits`, `inputs[].path`; an empty object or array is a leaf. */
function leafPaths(v: unknown, at = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) {
    if (v.length === 0) out.add(`${at}[]`);
    for (const e of v) leafPaths(e, `${at}[]`, out);
  } else if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0 || MAPS.has(at)) out.add(at);
    else for (const k of keys) leafPaths((v as Record<string, unknown>)[k], at === '' ? k : `${at}.${k}`, out);
  } else out.add(at);
  return out;
}

/** The field tables above the worked example: each field the first cell names, with its row's text. */
function documentedFields(): Map<string, string> {
  const tables = md.slice(0, md.indexOf('\n## Worked example\n'));
  const fields = new Map<string, string>();
  for (const line of tables.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || !cells[1]!.startsWith('`')) continue;
    for (const m of cells[1]!.matchAll(/`([A-Za-z][A-Za-z.[\]]*)`/g)) fields.set(m[1]!, line);
  }
  return fields;
}

/** Whether `path` is documented: a row of its own, or the row of an enclosing field naming its key in backticks. */
function documented(path: string, fields: Map<string, string>): boolean {
  if (fields.has(path)) return true;
  for (let cut = path.length; cut > 0; cut--) {
    const q = path.slice(0, cut);
    const rest = path.slice(cut).replace(/^\[\]/, '').replace(/^\./, '');
    if (rest === path.slice(cut) || !fields.has(q)) continue;
    if (MAPS.has(q)) return true;
    const key = rest.split(/[.[]/)[0]!;
    return new RegExp(`\`[^\`]*\\b${key}\\b[^\`]*\``).test(fields.get(q)!);
  }
  return false;
}

/** The first fenced block after `marker` in report.md. */
function blockAfter(marker: string): string {
  const at = md.indexOf(marker);
  assert.ok(at >= 0, marker);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(md.slice(at));
  return m![1]!;
}

/** A summary with its run ids and time row's figures masked. */
function masked(text: string): string {
  return text.replace(/\d{8}-\d{6}-\d{3}-[0-9a-f]{8}/g, '<run-id>').replace(/^(\s+time\s+).*$/m, '$1<time>');
}

/** Runs `args` on a copy of the bundled data in a new clone-like directory; stdout with that directory spelled as the doc's clone. */
async function runInClone(args: string[]): Promise<string> {
  const clone = tempDir();
  fs.mkdirSync(join(clone, 'data'));
  fs.copyFileSync(join(ROOT, DATA), join(clone, DATA));
  const r = await drum(['ingest', '--no-progress', ...args, DATA], { cwd: clone });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split(clone).join(DOC_CLONE);
}

describe('docs/report.md against a real run on the bundled data', () => {
  let summary = '';
  let report: Record<string, unknown> = {};
  before(async () => {
    summary = await runInClone([]);
    report = JSON.parse(await runInClone(['--json'])) as Record<string, unknown>;
  });

  it('shows the summary drum ingest prints', () => {
    assert.equal(masked(blockAfter('`./bin/drum ingest data/archive-org-2008-outlinks.tsv.gz`')), masked(summary));
  });

  it('shows a worked example with exactly the fields of the report drum ingest --json prints, and its counts', () => {
    const example = JSON.parse(blockAfter('\n## Worked example\n')) as Record<string, unknown>;
    assert.deepEqual([...leafPaths(example)].sort(), [...leafPaths(report)].sort());
    const stable = (r: Record<string, unknown>): unknown[] => {
      const t = r.tiers as { journal: { keys: number; rounds: number; folds: number } };
      const inputs = r.inputs as { bytes: number; sha256: string }[];
      return [r.status, r.policy, r.linksRead, r.uniqueUrls, r.duplicateUrls, r.rejectedLines, r.revisitUrls, r.storeUrls, r.disk,
        (r.io as { merges: number }).merges, t.journal.keys, t.journal.rounds, t.journal.folds, inputs.map((i) => [i.bytes, i.sha256]), r.outputFiles];
    };
    assert.deepEqual(stable(example), stable(report));
  });

  it('documents every field the report prints, and names none it does not print', () => {
    const fields = documentedFields();
    const paths = [...leafPaths(report)];
    assert.deepEqual(paths.filter((p) => !documented(p, fields)), [], 'fields the report prints that no table names');
    const printed = (f: string): boolean => paths.some((p) => p === f || p.startsWith(`${f}.`) || p.startsWith(`${f}[]`));
    assert.deepEqual([...fields.keys()].filter((f) => !OPTIONAL.has(f) && !printed(f)), [], 'fields the tables name that the report does not print');
  });
});
