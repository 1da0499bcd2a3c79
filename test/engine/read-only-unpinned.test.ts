// A read-only Drum in a process that cannot hold every store file open (a
// low `ulimit -n`: one descriptor per key file, values file and values delta
// would be needed) while a writer in another process merges and compacts,
// deleting the files the reader's manifest named. The reader runs in a child
// process started under `ulimit -n`; the writer is this process. Linux and
// macOS only (bash's ulimit).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Drum } from '../../src/engine/drum.js';
import { readManifest } from '../../src/store/manifest.js';
import { distRoot } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/** The reader: opens the store read-only, then answers one JSON command per stdin line with one JSON line. */
const CHILD = `
import { createInterface } from 'node:readline';
import { readdirSync, readlinkSync } from 'node:fs';
const { Drum } = await import(process.argv[1]);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let r;
try { r = await Drum.open(process.argv[2], { readOnly: true, workers: 0 }); say({ open: true }); }
catch (e) { say({ code: e.code ?? 'raw', message: String(e.message) }); process.exit(0); }
for await (const line of createInterface({ input: process.stdin })) {
  const c = JSON.parse(line);
  try {
    if (c.op === 'check') { const urls = []; await r.check({ inputs: [c.probe], onNew: (u) => urls.push(u) }); say({ urls }); }
    else if (c.op === 'resolve') { const docs = []; await r.resolve({ inputs: [c.probe], onResolved: (d, u) => docs.push([u, d]) }); say({ docs }); }
    else if (c.op === 'verify') { const v = await r.verify(); say({ ok: v.ok, problems: v.problems }); }
    else if (c.op === 'pinned') say({ pinned: readdirSync('/proc/self/fd').filter((fd) => { try { return readlinkSync('/proc/self/fd/' + fd).startsWith(c.dir); } catch { return false; } }).length });
    else { await r.close(); say({ closed: true }); break; }
  } catch (e) { say({ code: e.code ?? 'raw', message: String(e.message) }); }
}
`;

/** The reader child under `ulimit -n limit`, and a way to send it a command and await its answer. */
function reader(state: string, limit: number): { ask: (c: object) => Promise<Record<string, unknown>>; opened: Promise<Record<string, unknown>>; kill: () => void } {
  const drum = pathToFileURL(join(distRoot, 'src', 'engine', 'drum.js')).href;
  const child = spawn('bash', ['-c', `ulimit -n ${limit} && exec "$0" --input-type=module -e "$1" "$2" "$3"`, process.execPath, CHILD, drum, state], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const l = await lines.next();
    if (l.done === true) throw new Error('the reader exited');
    return JSON.parse(l.value as string) as Record<string, unknown>;
  };
  return {
    kill: () => void child.kill(),
    opened: next(),
    ask: (c) => {
      child.stdin.write(JSON.stringify(c) + '\n');
      return next();
    },
  };
}

const url = (batch: string, i: number): string => `http://h${i % 400}.example/${batch}/${i}`;

function linkFile(dir: string, name: string, urls: string[]): string {
  const p = join(dir, name);
  fs.writeFileSync(p, urls.join('\n') + '\n');
  return p;
}

/**
 * A 64-bucket store of 6,200 URLs with a Bloom file, whose buckets each have
 * a values file and 4 deltas (over 300 files), and 200 URLs in the key journal.
 */
async function storeWithDeltas(dir: string): Promise<string> {
  const state = join(dir, 'state');
  // Journal off: every ingest merges, and a round that only adds writes each bucket's new values as a delta.
  const w = await Drum.open(state, { fsync: false, workers: 0, journalKeys: 0, bloom: 'gate' });
  try {
    await w.ingest({ inputs: [linkFile(dir, 'base.txt', Array.from({ length: 4000 }, (_, i) => url('base', i)))], outDir: join(dir, 'out-base') });
    for (let k = 0; k < 4; k++) {
      await w.ingest({ inputs: [linkFile(dir, `more${k}.txt`, Array.from({ length: 500 }, (_, i) => url(`more${k}`, i)))], outDir: join(dir, `out-more${k}`) });
    }
  } finally {
    await w.close();
  }
  const j = await Drum.open(state, { fsync: false, workers: 0, bloom: 'gate' });
  try {
    await j.ingest({ inputs: [linkFile(dir, 'journal.txt', Array.from({ length: 200 }, (_, i) => url('journal', i)))], outDir: join(dir, 'out-journal') });
  } finally {
    await j.close();
  }
  assert.ok(readManifest(state)!.journal !== undefined, 'the last ingest went to the key journal');
  return state;
}

/** Runs a writer on `state` in this process: `adds` (if any) merged into every bucket (the journal folded first), then a compaction. */
async function writer(state: string, dir: string, adds: string[] | null): Promise<void> {
  const w = await Drum.open(state, { fsync: false, workers: 0, journalKeys: 0, bloom: 'gate' });
  try {
    if (adds !== null) await w.ingest({ inputs: [linkFile(dir, 'adds.txt', adds)], outDir: join(dir, 'out-adds') });
    await w.compact();
  } finally {
    await w.close();
  }
}

/** The files the manifest names: bucket files, key journal, Bloom file. */
function storeFiles(state: string): Set<string> {
  const m = readManifest(state)!;
  const files = new Set<string>();
  for (const e of m.buckets) {
    if (!e) continue;
    files.add(e.file);
    if (e.values) for (const f of [e.values.file, ...(e.values.deltas ?? []).map((d) => d.file)]) files.add(f);
  }
  if (m.journal) files.add(m.journal.file);
  if (m.bloom) files.add(m.bloom.file);
  return files;
}

/** Files of `before` that `state` no longer holds. */
function gone(state: string, before: Set<string>): number {
  let n = 0;
  for (const f of before) if (!fs.existsSync(join(state, f))) n++;
  return n;
}

/** docIDs of `urls` from a reader that holds its files. */
async function docIDs(state: string, dir: string, urls: string[]): Promise<Map<string, number | null>> {
  const docs = new Map<string, number | null>();
  const d = await Drum.open(state, { readOnly: true, workers: 0 });
  try {
    await d.resolve({ inputs: [linkFile(dir, 'to-resolve.txt', urls)], onResolved: (doc, u) => void docs.set(u, doc) });
  } finally {
    await d.close();
  }
  return docs;
}

/** A store with deltas, its stored URLs' docIDs, and a probe of stored, never-stored and (later) added URLs. */
async function setUp(): Promise<{ dir: string; state: string; docs: Map<string, number | null>; never: string[]; added: string[]; probe: string }> {
  const dir = tempDir();
  const state = await storeWithDeltas(dir);
  assert.ok(storeFiles(state).size > 300, `${storeFiles(state).size} store files`);
  const stored = [
    ...Array.from({ length: 300 }, (_, i) => url('base', i * 13)), ...Array.from({ length: 100 }, (_, i) => url('more3', i * 5)),
    ...Array.from({ length: 50 }, (_, i) => url('journal', i * 4)),
  ];
  const docs = await docIDs(state, dir, stored);
  assert.ok(stored.every((u) => typeof docs.get(u) === 'number'));
  const never = Array.from({ length: 300 }, (_, i) => url('never', i));
  const added = Array.from({ length: 2000 }, (_, i) => url('added', i));
  return { dir, state, docs, never, added, probe: linkFile(dir, 'probe.txt', [...stored, ...never, ...added.slice(0, 300)]) };
}

/** Opens the reader child under `ulimit -n 150` (too few descriptors to pin 300 files) and checks it holds no bucket file open. */
async function lowLimitReader(t: { after: (fn: () => void) => void }, state: string): Promise<ReturnType<typeof reader>> {
  const r = reader(state, 150);
  t.after(r.kill); // an assertion that fails must not leave the child waiting on its stdin
  assert.deepEqual(await r.opened, { open: true });
  if (process.platform === 'linux') {
    const { pinned } = (await r.ask({ op: 'pinned', dir: state + '/' })) as { pinned: number };
    assert.ok(pinned <= 2, `${pinned} store files held open: no bucket file is (at most the journal and the Bloom file)`);
  }
  return r;
}

describe('a read-only Drum that cannot hold every store file open', { skip: process.platform === 'win32' && 'needs ulimit' }, () => {
  it('answers resolve and check correctly after a writer compacts, then merges and compacts, the files it opened on', async (t) => {
    const { dir, state, docs, never, added, probe } = await setUp();
    const before = storeFiles(state);
    const r = await lowLimitReader(t, state);
    // A compaction alone (the journal merged, the values folded): values files and deltas go, most key files stay.
    await writer(state, dir, null);
    assert.ok(gone(state, before) > 250, `${gone(state, before)} of ${before.size} files deleted`);
    const res1 = await r.ask({ op: 'resolve', probe });
    assert.equal(res1.code, undefined, String(res1.message));
    checkResolved(res1.docs as [string, number | null][], docs, never, new Map());
    // New URLs in every bucket, then a compaction: every file the reader opened on is gone.
    await writer(state, dir, added);
    assert.equal(gone(state, before), before.size);
    const addedDocs = await docIDs(state, dir, added);
    const chk = await r.ask({ op: 'check', probe });
    assert.equal(chk.code, undefined, String(chk.message));
    const fresh = new Set(chk.urls as string[]);
    for (const u of docs.keys()) assert.ok(!fresh.has(u), `${u} is stored, reported new`);
    for (const u of never) assert.ok(fresh.has(u), `${u} was never stored, not reported new`);
    const res2 = await r.ask({ op: 'resolve', probe });
    assert.equal(res2.code, undefined, String(res2.message));
    checkResolved(res2.docs as [string, number | null][], docs, never, addedDocs);
    assert.deepEqual(await r.ask({ op: 'close' }), { closed: true });
  });

  it('verifies as sound after a writer merges and compacts the files it opened on', async (t) => {
    const { dir, state, added } = await setUp();
    const before = storeFiles(state);
    const r = await lowLimitReader(t, state);
    await writer(state, dir, added);
    assert.equal(gone(state, before), before.size);
    assert.deepEqual(await r.ask({ op: 'verify' }), { ok: true, problems: [] });
    assert.deepEqual(await r.ask({ op: 'close' }), { closed: true });
  });
});

/**
 * Each stored URL has its docID, each never-stored URL none, and each URL a
 * writer added after the reader opened either none (the state the reader
 * opened on) or the docID the writer gave it (a later state).
 */
function checkResolved(got: [string, number | null][], stored: Map<string, number | null>, never: string[], added: Map<string, number | null>): void {
  const by = new Map(got);
  for (const [u, d] of stored) assert.equal(by.get(u), d, `docID of ${u}`);
  for (const u of never) assert.equal(by.get(u), null, `${u} was never stored`);
  for (const [u, d] of added) if (by.has(u)) assert.ok(by.get(u) === null || by.get(u) === d, `docID of ${u}: ${by.get(u)}, the writer gave ${d}`);
}
