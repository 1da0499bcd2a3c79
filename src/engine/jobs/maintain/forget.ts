// The forget job (`drum forget`, Drum.forget): removes URLs from the store in
// ONE merge round of the DRUM core's 'delete', so each is new again to the
// next ingest. The list is read and canonicalized as ingest reads its inputs
// (the store's recorded policy), with rejects counted by line number. Every
// tier honours it: the parse threads' line memos are emptied (a memo hit would
// answer "seen" without a lookup), the hot cache and the recent table drop the
// listed keys, and the Bloom filter is rebuilt from the keys the delete merge
// streams past (as every ingest merge rebuilds it; docs/tiers.md has the
// figures against a deletable filter) or dropped when this open has none.
// The forget commits like an ingest round — new key files (*.tmp, fsync,
// rename), its forgotten.txt and rejects.tsv made durable, then one manifest
// rename that records it in the history (kind 'forget') — and then its
// catalog record and the negative host counts (forget-records.ts).
// `--host` (forget-hosts.ts) adds every stored key of an exact host, by the
// host check in its value; a keys-only store refuses it with
// DRUM_NEEDS_UPGRADE (the 24-bit host fingerprint alone could take another
// host's URLs). Does not resume: a crashed forget left the old state; run it
// again.
// REQUIRES: a Session opened for writing; one job at a time on it; no round pending.

import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { AUX_MAX_URL_BYTES } from '../../../bucket/aux-log.js';
import { DrumError } from '../../../errors.js';
import type { Reject } from '../../../input/types.js';
import { RejectsWriter } from '../../../output/rejects.js';
import { LineFile } from '../../../output/line-file.js';
import { newRunCounters, type RunCounters } from '../../../stats/counters.js';
import type { InputRecord, ManifestBody } from '../../../store/manifest.js';
import { BlockedBloom } from '../../../tiers/bloom.js';
import type { ForgetReject, ForgetReport, ForgetRequest } from '../../api.js';
import type { Session } from '../../session/session.js';
import { forgetRound, namedBuckets, roundBloomEntry, roundValues, writtenFiles } from '../../url-seen/commit.js';
import type { WrittenBucket } from '../../core/drum-core.js';
import type { ParsedChunk } from '../../pipeline/parse.js';
import { readLoop } from '../../pipeline/read-loop.js';
import { recoverHostCounts } from '../../hosts/host-recovery.js';
import { HostCounter } from '../../hosts/host-counter.js';
import { closeEach } from '../../../io/close-each.js';
import { refuseBadStore } from '../ingest/ingest.js';
import { HOST_PAYLOAD_MARK, routeHosts, type HostTarget } from './forget-hosts.js';
import { HISTORY_KEEP } from '../ingest/run-history.js';
import { checkOutDir, checkOutDirPlace, newRunId } from '../ingest/run-setup.js';
import { inputPath, inputSize } from '../../../input/open.js';
import { applyNegated, FORGET_REJECTS_KEPT, FORGOTTEN_FILE, forgetRecord, forgetSummary } from './forget-records.js';
import { foldJournal } from '../../url-seen/journal-round.js';

/** A forget as it goes: its list, its outputs and its counts. */
interface ForgetRun {
  readonly s: Session;
  readonly runId: string;
  readonly startedAt: string;
  readonly outDir: string;
  readonly inputs: InputRecord[];
  readonly rejectsOut: RejectsWriter;
  readonly forgotten: LineFile;
  readonly hosts: HostCounter;
  readonly c: RunCounters;
  asked: number;
  repeats: number;
  rejected: number;
  readonly rejects: ForgetReject[];
  /** forget --host: the hosts, with what the round found of each. */
  targets: HostTarget[];
}

/** Drum.forget: a list of URLs or a request; on failure the round is dropped and the tiers reloaded. */
export async function forgetJob(s: Session, req: ForgetRequest | Iterable<string>): Promise<ForgetReport> {
  if (s.opts.readOnly) throw new DrumError('DRUM_BAD_OPTION', 'forget needs a store opened for writing');
  const r: ForgetRequest = typeof req === 'object' && req !== null && !(Symbol.iterator in req) ? req : { urls: req as Iterable<string> };
  try {
    return await forget(s, r);
  } catch (e) {
    // The keys it routed are dropped; the tiers go back to what the committed store vouches for.
    await forgetRound(s);
    throw e;
  }
}

export async function forget(s: Session, req: ForgetRequest): Promise<ForgetReport> {
  if (req.hosts !== undefined && req.hosts.length > 0 && !s.valued) {
    throw new DrumError('DRUM_NEEDS_UPGRADE', 'forgetting by hosts (--host) needs a host check stored with each URL, which this store (keys only) lacks: the 24-bit host fingerprint alone could remove another host\'s URLs; run drum upgrade first');
  }
  // A missing or unreadable list fails the forget before it starts, as an ingest's input does.
  for (const p of req.inputs ?? []) await inputSize(inputPath(p));
  // A crash between the unfinished ingest's last commit and its host counts: counted first, as ingest does.
  await recoverHostCounts(s.store.body.run, s.catalog, { dfs: s.dfs, path: join(s.workDir, 'hosts-recovery.parts') });
  await refuseBadStore(s);
  // Keys the journal holds are removed from the bucket files like any other: they are folded in first.
  await foldJournal(s);
  const runId = newRunId();
  const outDir = req.outDir === undefined ? join(resolve(s.dir), 'runs', runId) : resolve(req.outDir);
  checkOutDirPlace(s.dir, outDir);
  checkOutDir(outDir);
  const inputs = listInputs(s, req);
  const madeOutDir = !fs.existsSync(outDir);
  let failed = false;
  let error: unknown;
  // Refused before its commit (a bad host, a list too long for one round, a full disk): no run, so no outputs.
  const dropOutputs = (): void => {
    if (madeOutDir) fs.rmSync(outDir, { recursive: true, force: true });
    else for (const f of [FORGOTTEN_FILE, 'rejects.tsv']) fs.rmSync(join(outDir, f), { force: true });
  };
  const { rejectsOut, forgotten } = openOutputs(s, outDir, dropOutputs);
  const r: ForgetRun = {
    s, runId, startedAt: new Date().toISOString(), outDir, inputs, rejectsOut, forgotten,
    hosts: new HostCounter(), c: newRunCounters(), asked: 0, repeats: 0, rejected: 0, rejects: [], targets: [],
  };
  try {
    // A memo hit answers "seen" before any lookup: the forgotten URLs must not be vouched for by it.
    s.pool.clearMemo();
    s.front.startRound();
    // The hosts' keys first: a listed URL of such a host is then an in-round repeat of its key.
    if (req.hosts !== undefined && req.hosts.length > 0) r.targets = await routeHosts(s, req.hosts, (hi, lo, pl) => addKey(r, hi, lo, pl, 0, pl.length));
    const inputErrors = await readList(r, req);
    return await mergeAndRecord(r, inputErrors);
  } catch (e) {
    // Committed once the manifest names it, even if the commit call failed after its rename.
    failed = !s.store.body.history.some((h) => h.runId === r.runId);
    error = e;
    throw e;
  } finally {
    // Closing writes what is still buffered, which a full disk refuses as well: that must neither
    // hide the error that stopped the forget nor keep its outputs from being removed.
    const closeError = await closeEach([() => r.forgotten.close(), () => r.rejectsOut.close()]);
    fs.rmSync(join(s.workDir, 'forget-urls.txt'), { force: true });
    if (failed) dropOutputs();
    if (error === undefined && closeError !== undefined) throw closeError;
  }
}

/** The forget's rejects.tsv and forgotten.txt in `outDir` (made here); on failure both are closed and `drop` runs. */
function openOutputs(s: Session, outDir: string, drop: () => void): { rejectsOut: RejectsWriter; forgotten: LineFile } {
  let rejectsOut: RejectsWriter | undefined;
  try {
    s.dfs.mkdirp(outDir, s.opts.fsync);
    rejectsOut = RejectsWriter.open(s.dfs, join(outDir, 'rejects.tsv'), { resumeLength: 0, fsync: s.opts.fsync });
    return { rejectsOut, forgotten: new LineFile(s.dfs, join(outDir, FORGOTTEN_FILE), s.opts.fsync) };
  } catch (e) {
    void rejectsOut?.close().catch(() => undefined);
    drop();
    throw e;
  }
}

/** The list's inputs: the files (as given; '-' is stdin), then the in-memory URLs written to a work file. */
function listInputs(s: Session, req: ForgetRequest): InputRecord[] {
  const out: InputRecord[] = (req.inputs ?? []).map((p) => ({ path: inputPath(p), bytes: 0, sha256: '', sampled: false }));
  if (req.urls !== undefined) {
    // One URL per line: a line break inside an element would shift every later line number, so it becomes a space.
    const lines = [...req.urls].map((u) => `${u.replace(/[\r\n]/g, ' ')}\n`).join('');
    const path = join(s.workDir, 'forget-urls.txt');
    s.dfs.writeFile(path, lines);
    out.push({ path, bytes: Buffer.byteLength(lines), sha256: '', sampled: false });
  }
  return out;
}

/** Reads the whole list into one round: each URL's key goes to the core with the URL as its payload. */
async function readList(r: ForgetRun, req: ForgetRequest): Promise<ForgetReport['inputErrors']> {
  const { s } = r;
  if (r.inputs.length === 0) return [];
  const urlsInput = req.urls === undefined ? -1 : r.inputs.length - 1;
  const errors = await readLoop(s, {
    inputs: r.inputs, from: { input: 0, offset: 0, line: 0 }, skip: r.inputs.map(() => false),
    read: urlsInput >= 0 && r.inputs.length === 1 ? { format: 'lines' } : req,
    onBytes: () => {},
    onChunk: (p) => routeList(r, p),
    onInputDone: () => {},
    learn: false,
  });
  return errors.map((e) => ({ path: e.path, code: e.code, message: e.message, line: e.line }));
}

/** Routes one parsed chunk of the list: rejects counted, tiers told, keys added to the round. */
function routeList(r: ForgetRun, p: ParsedChunk): void {
  countRejects(r, p.rejects);
  const { batch, keys, repeats } = p;
  const tooLong: Reject[] = [];
  let start = 0;
  let prevS = -1;
  let prevE = -1;
  for (let i = 0; i < batch.count; i++) {
    const end = batch.ends[i]!;
    const st = start;
    start = end;
    if (end - st > AUX_MAX_URL_BYTES) {
      tooLong.push({ line: batch.lines[i]!, input: p.input, reason: 'too-long', excerpt: Buffer.from(batch.bytes.subarray(st, st + 200)) });
      continue;
    }
    r.asked++;
    if (p.repeatCount > 0 && repeats[i] === 1) {
      r.repeats++;
      continue;
    }
    addKey(r, keys[2 * i]!, keys[2 * i + 1]!, batch.bytes, st, end, prevS, prevE);
    prevS = st;
    prevE = end;
  }
  countRejects(r, tooLong);
  // Lines the parse thread found repeated within the chunk never became URLs of the batch.
  r.asked += p.lineRepeats;
  r.repeats += p.lineRepeats;
}

/** Adds one key to the delete round with its payload src[start, end); the tiers drop it first. */
function addKey(r: ForgetRun, hi: number, lo: number, src: Uint8Array, start: number, end: number, prevS = -1, prevE = -1): void {
  const { s } = r;
  // Neither may answer "seen" for a forgotten URL (a failed forget only costs them these entries).
  s.front.cache.remove(hi, lo);
  s.front.recent.remove(hi, lo);
  if (s.core.records >= s.plan.maxRoundEntries) {
    throw new DrumError('DRUM_BAD_OPTION', `a forget is one merge round, and this list holds more URLs than a round can (${s.plan.maxRoundEntries.toLocaleString('en-US')} with this memory budget): split it, or give a larger memoryBytes (--memory)`);
  }
  s.core.add(hi, lo, src, start, end, prevS, prevE);
}

function countRejects(r: ForgetRun, rs: readonly Reject[]): void {
  if (rs.length === 0) return;
  r.rejected += rs.length;
  r.rejectsOut.addAll(rs);
  for (const x of rs) if (r.rejects.length < FORGET_REJECTS_KEPT) r.rejects.push({ input: x.input, line: x.line, reason: x.reason });
}

/** The delete round, its commit, then the catalog record and the host counts. */
async function mergeAndRecord(r: ForgetRun, inputErrors: ForgetReport['inputErrors']): Promise<ForgetReport> {
  const { s } = r;
  const body = s.store.body;
  const bloom = s.plan.bloomMaxKeys > 0
    ? BlockedBloom.forStore(body.storeUrls, s.opts.bloomBitsPerKey, s.plan.bloomMaxKeys)
    : null;
  const v = await s.core.merge('delete', {
    files: s.storeFiles(), fsync: s.opts.fsync, counters: r.c, onHit: null,
    keySink: bloom === null ? null : (keys, n) => bloom.addPairs(keys, n),
    emit: (buf, start, end) => {
      // A key found by --host has no URL text (TAB + host): its host's count is the target's.
      if (buf[start] === HOST_PAYLOAD_MARK) return;
      r.forgotten.write(buf, start, end);
      r.hosts.add(buf, start, end);
    },
    worker: { pool: s.pool, minRecords: s.opts.tuning.workerDispatchMin },
    values: roundValues(s), // the forgotten keys' values go with them
  });
  r.repeats += r.c.inRoundRepeats;
  const byHost = r.targets.reduce((a, t) => a + t.found, 0);
  const hosts = r.targets.map((t) => ({ host: t.host, forgotten: t.found, unknownHost: t.unknown }));
  const counts = {
    asked: r.asked, forgotten: v.newKeys, notStored: r.asked - (v.newKeys - byHost) - r.repeats, repeats: r.repeats, rejectedLines: r.rejected,
    ...(hosts.length > 0 ? { hosts } : {}),
  };
  const summary = forgetSummary(r.runId, r.startedAt, r.outDir, r.inputs.map((i) => ({ ...i, path: i.path.startsWith(s.workDir) ? '(urls)' : i.path })), counts);
  const next = await commitForget(r, body, v.written, bloom, summary);
  if (s.catalog !== null) {
    await s.catalog.putRun(forgetRecord(summary, r.rejects, { kind: 'forget', policy: s.policy.id }));
    const m = r.hosts.takeMap();
    for (const t of r.targets) m.set(t.host, (m.get(t.host) ?? 0) + t.found);
    await applyNegated(s.catalog, r.runId, m);
  }
  return { runId: r.runId, outDir: r.outDir, ...counts, rejects: r.rejects, storeUrls: next.storeUrls, inputErrors };
}

/** Names the merged files, the rebuilt (or no) Bloom filter and the forget's history entry in one manifest commit. */
async function commitForget(
  r: ForgetRun, body: ManifestBody, written: Map<number, WrittenBucket>,
  bloom: BlockedBloom | null, summary: ManifestBody['history'][number],
): Promise<ManifestBody> {
  const { s } = r;
  const buckets = namedBuckets(s, body, written);
  const bloomEntry = await roundBloomEntry(s, bloom);
  r.forgotten.sync();
  await r.rejectsOut.sync();
  if (s.opts.fsync) s.dfs.fsyncDir(r.outDir); // forgotten.txt and rejects.tsv were created for this commit (the directory's own name at its mkdirp)
  const storeUrls = buckets.reduce((a, e) => a + (e ? e.keys : 0), 0);
  const history = [...body.history, summary].slice(-HISTORY_KEEP);
  // A filter this open did not rebuild still names forgotten keys: the commit drops it (the next merge with a Bloom mode builds one).
  s.store.commit({ ...body, buckets, bloom: bloomEntry, storeUrls, history });
  s.front.bloom = bloom;
  s.nextRound();
  // The tiers no longer hold the forgotten keys; the session saves them (tiers.cache) when it closes.
  s.committed(writtenFiles(buckets, written));
  return s.store.body;
}
