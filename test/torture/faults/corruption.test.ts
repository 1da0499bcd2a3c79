// Corruption of each kind of state file, through the real bin/drum: the
// MANIFEST, a store key file and its values file, the Bloom file (made with
// --bloom gate), the key journal and the LevelDB catalog's files, each
// flipped (one byte), truncated (to half) and deleted. After each: `drum verify` exits with DRUM_CORRUPT_FILE's status and
// names the file; `drum ingest` (Bloom off and gate) exits non-zero and
// changes nothing: every state file hashes the same before and after, and the
// catalog holds the same keys and values (compared by content from a copy,
// since opening LevelDB rewrites its own log files). Damage to the catalog's
// write-ahead log is the documented exception (docs/reliability.md): LevelDB
// repairs a log silently, so verify passes, the catalog opens, ingest runs,
// and the catalog may have lost records but holds none it did not hold before.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../../src/errors.js';
import { catalogContent, drum, hashTree, haveEngine, manifestOf, tempRoot, writeLinks } from '../harness.js';

const FAST = ['--no-progress', '--quiet', '--no-fsync', '--workers', '0'];
type Damage = 'flip' | 'truncate' | 'delete';
type Kind = 'MANIFEST' | 'key file' | 'values file' | 'values delta file' | 'URL log segment' | 'bloom file' | 'journal file' | 'catalog CURRENT' | 'catalog MANIFEST' | 'catalog log';

let root = '';
let base = '';

/** The file of `kind` in state dir `s` (relative path). */
function fileOf(kind: Kind, s: string): string {
  const m = manifestOf(s)!;
  switch (kind) {
    case 'MANIFEST':
      return 'MANIFEST';
    case 'key file': {
      const e = m.buckets.filter((x) => x !== null).sort((a, b) => b!.bytes - a!.bytes)[0]!;
      return e.file;
    }
    case 'values file': {
      const e = m.buckets.filter((x) => x !== null).sort((a, b) => b!.bytes - a!.bytes)[0]!;
      return e.values!.file;
    }
    case 'values delta file': {
      const e = m.buckets.filter((x) => (x?.values?.deltas?.length ?? 0) > 0).sort((a, b) => b!.bytes - a!.bytes)[0]!;
      return e.values!.deltas![0]!.file;
    }
    case 'URL log segment':
      return `urls/${fs.readdirSync(join(s, 'urls')).filter((f) => f.endsWith('.seg')).sort()[0]!}`;
    case 'bloom file':
      return m.bloom!.file;
    case 'journal file':
      return m.journal!.file;
    case 'catalog CURRENT':
      return 'catalog/CURRENT';
    case 'catalog MANIFEST':
      return `catalog/${fs.readdirSync(join(s, 'catalog')).find((f) => f.startsWith('MANIFEST-'))!}`;
    case 'catalog log':
      return `catalog/${fs.readdirSync(join(s, 'catalog')).find((f) => f.endsWith('.log'))!}`;
  }
}

function damage(path: string, how: Damage): void {
  if (how === 'delete') return fs.rmSync(path);
  const b = fs.readFileSync(path);
  if (how === 'truncate') return fs.writeFileSync(path, b.subarray(0, b.length >> 1));
  // Flip a byte past any header: in the body/keys/bits, where only a checksum can tell.
  const at = Math.min(b.length - 1, Math.max(b.length >> 1, 40));
  b[at] = b[at]! ^ 0x5a;
  fs.writeFileSync(path, b);
}

interface Snapshot {
  files: Record<string, string>;
  catalog: string[];
}
async function snap(s: string): Promise<Snapshot> {
  return { files: hashTree(s), catalog: await catalogContent(s) };
}

const kinds: Kind[] = ['MANIFEST', 'key file', 'values file', 'values delta file', 'bloom file', 'journal file', 'catalog CURRENT', 'catalog MANIFEST'];
const damages: Damage[] = ['flip', 'truncate', 'delete'];

describe('a damaged state file', { skip: !haveEngine && 'engine not compiled' }, () => {
  before(async () => {
    root = tempRoot();
    base = join(root, 'base');
    writeLinks(join(root, 'a.txt'), 20_000, 1);
    writeLinks(join(root, 'b.txt'), 20_000, 2);
    writeLinks(join(root, 'c.txt'), 5_000, 3);
    writeLinks(join(root, 'd.txt'), 5_000, 4);
    // a and b merge (key files, Bloom file); d's fewer new URLs go to values deltas; j's to the key journal in a journal round.
    fs.writeFileSync(join(root, 'j.txt'), Array.from({ length: 500 }, (_, i) => `http://journal-${i % 50}.example/p/${i}\n`).join(''));
    for (const [f, journalKeys] of [['a.txt', '0'], ['b.txt', '0'], ['d.txt', '0'], ['j.txt', '65536']] as const) {
      const r = await drum(['ingest', ...FAST, '--bloom', 'gate', '--journal-keys', journalKeys, '--state', base, join(root, f)], { cwd: root });
      assert.equal(r.status, 0, r.stderr);
    }
    assert.ok(manifestOf(base)!.bloom, 'the base store has a Bloom file');
    assert.ok(manifestOf(base)!.journal, 'the base store has a key journal');
    assert.ok(manifestOf(base)!.buckets.some((e) => (e?.values?.deltas?.length ?? 0) > 0), 'd\'s round left a values delta');
    assert.ok((await catalogContent(base)).length >= 8, 'the base catalog holds runs and hosts');
    assert.equal((await drum(['verify', '--state', base], { cwd: root })).status, 0);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  for (const kind of kinds) {
    for (const how of damages) {
      const name = `${kind}, ${how}: verify names it with DRUM_CORRUPT_FILE and ingest refuses, changing nothing`;
      it(name, async () => {
        const s = join(root, `${kind.replace(/ /g, '-')}-${how}`);
        fs.cpSync(base, s, { recursive: true });
        const rel = fileOf(kind, s);
        damage(join(s, rel), how);
        const before = await snap(s);

        const v = await drum(['verify', '--state', s], { cwd: root });
        assert.equal(v.status, EXIT_STATUS.DRUM_CORRUPT_FILE, `verify: ${v.stdout}${v.stderr}`);
        assert.match(v.stderr, /drum: DRUM_CORRUPT_FILE: /);
        const named = kind.startsWith('catalog') ? join(s, 'catalog') : join(s, rel);
        assert.ok(v.stderr.includes(named), `verify names ${named}: ${v.stderr}`);

        for (const bloom of ['off', 'gate']) {
          const out = join(root, `out-${kind.replace(/ /g, '-')}-${how}-${bloom}`);
          const r = await drum(['ingest', ...FAST, '--bloom', bloom, '--state', s, '--out', out, join(root, 'c.txt')], { cwd: root });
          assert.notEqual(r.status, 0, `ingest --bloom ${bloom} must refuse`);
          assert.equal(r.status, EXIT_STATUS.DRUM_CORRUPT_FILE, `ingest --bloom ${bloom}: ${r.stderr}`);
          assert.ok(!fs.existsSync(out), 'no output directory');
          assert.deepEqual(await snap(s), before, `ingest --bloom ${bloom} changed the state directory`);
        }
      });
    }
  }

  for (const how of damages) {
    it(`URL log segment, ${how}: verify names it with DRUM_CORRUPT_FILE, and the store still answers which URLs it has seen`, async () => {
      const s = join(root, `segment-${how}`);
      fs.cpSync(base, s, { recursive: true });
      const rel = fileOf('URL log segment', s);
      damage(join(s, rel), how);
      const v = await drum(['verify', '--state', s], { cwd: root });
      assert.equal(v.status, EXIT_STATUS.DRUM_CORRUPT_FILE, `verify: ${v.stdout}${v.stderr}`);
      assert.ok(v.stderr.includes(join(s, rel)) || v.stderr.includes(join(s, 'urls')), `verify names ${rel}: ${v.stderr}`);
      // The keys and values are intact: every URL of an earlier run is still seen.
      const c = await drum(['check', '--quiet', '--state', s, join(root, 'a.txt')], { cwd: root });
      assert.equal(c.status, 0, c.stderr);
      assert.equal(c.stdout, '', 'no URL of an earlier run reads as new');
    });
  }

  for (const how of damages) {
    it(`catalog log, ${how}: LevelDB repairs it silently; verify passes, the catalog opens and ingest runs, and no catalog record is invented`, async () => {
      const s = join(root, `catalog-log-${how}`);
      fs.cpSync(base, s, { recursive: true });
      const rows = new Set(await catalogContent(s));
      const stateBefore = hashTree(s);
      damage(join(s, fileOf('catalog log', s)), how);

      const v = await drum(['verify', '--state', s], { cwd: root });
      assert.equal(v.status, 0, `verify: ${v.stdout}${v.stderr}`);
      const after = await catalogContent(s);
      assert.ok(!after.some((r) => r.startsWith('unreadable')), `the catalog opens: ${after[0]}`);
      // Writes in the damaged part are lost: a record may fall back to a value it held earlier (a run record to
      // its 'running' one), but no key appears that the catalog never held.
      const keys = new Set([...rows].map((r) => r.split('\t')[0]));
      for (const r of after) assert.ok(keys.has(r.split('\t')[0]), `a record the catalog never held: ${r}`);
      assert.deepEqual(hashTree(s), stateBefore, 'verify changed a store file');

      // drum runs settles a run record that fell back against the manifest: every run the manifest holds is complete.
      const runs = await drum(['runs', '--json', '--state', s], { cwd: root });
      assert.equal(runs.status, 0, `runs: ${runs.stderr}`);
      const listed = new Map((JSON.parse(runs.stdout) as { runId: string; status: string }[]).map((x) => [x.runId, x.status]));
      for (const h of manifestOf(s)!.history) assert.equal(listed.get(h.runId), 'complete', `run ${h.runId}`);
      const r = await drum(['ingest', ...FAST, '--state', s, join(root, 'c.txt')], { cwd: root });
      assert.equal(r.status, 0, `ingest: ${r.stderr}`);
      assert.equal((await drum(['verify', '--state', s], { cwd: root })).status, 0, 'sound after the ingest');
    });
  }
});
