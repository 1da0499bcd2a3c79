// The job behind `drum check`: which URLs of the inputs are not in the store
// yet, in input order, first occurrence only — DRUM's "check" without
// "update". Runs the same pipeline as ingest; its spills, aux log and any
// intermediate merged bucket files (an overlay over the store) go to the
// session's work directory (a private temporary one for a read-only
// session), and the store itself is never written. The tiers answer but
// are not fed (Front.route's and the line memo's `learn` false, no hot-cache
// promotion in the merge), so nothing vouches for a checked key afterwards
// and a check costs no tier reload. Afterwards, whether it finished or
// threw, the pending round and overlay files are dropped.

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Reject } from '../../../input/types.js';
import { newRunCounters } from '../../../stats/counters.js';
import { KeyReader } from '../../../store/keys/key-reader.js';
import { keysFileName } from '../../../store/keys/format.js';
import type { CheckRequest } from '../../api.js';
import { describeInputs } from '../ingest/run-setup.js';
import { readLoop, type InputError } from '../../pipeline/read-loop.js';
import { mergeRound } from '../../url-seen/round.js';
import type { BucketFiles } from '../../core/sort-stage.js';
import { dropRound, mergeDue } from '../../url-seen/commit.js';
import type { Session } from '../../session/session.js';

export interface CheckResult {
  linksRead: number;
  newUrls: number;
  rejectedLines: number;
  inputErrors: InputError[];
}

export async function check(s: Session, req: CheckRequest): Promise<CheckResult> {
  const overlay = new Map<number, { path: string; keys: number; bytes: number }>();
  try {
    return await checkInputs(s, req, overlay);
  } finally {
    // The checked keys were never stored; a check that threw also left them pending.
    dropRound(s);
    for (const o of overlay.values()) fs.rmSync(o.path, { force: true });
  }
}

async function checkInputs(s: Session, req: CheckRequest, overlay: Map<number, { path: string; keys: number; bytes: number }>): Promise<CheckResult> {
  const inputs = await describeInputs(req.inputs);
  const c = newRunCounters();
  // Buckets merged by an earlier round of this check live in the work dir (an overlay over the store).
  let round = 0;
  const files: BucketFiles = {
    openReader: (b, buffer) => {
      const o = overlay.get(b);
      return o ? KeyReader.open(s.dfs, o.path, { bucket: b, keys: o.keys }, o.bytes, buffer) : s.store.openReader(b, buffer);
    },
    outputPath: (b) => join(s.workDir, keysFileName(b, round + 1).replace('store/', '')),
    keysIn: (b) => overlay.get(b)?.keys ?? s.store.body.buckets[b]?.keys ?? 0,
    firstKeys: (b, reader) => (overlay.has(b) ? reader.firstKeys() : s.store.firstKeys(b, reader)),
  };
  const decoder = new TextDecoder();
  const runRound = async (last: boolean): Promise<void> => {
    // A check stores nothing, but a round before the last writes its union to the overlay, so later rounds see its keys.
    const res = await mergeRound({
      core: s.core, op: last ? 'check' : 'check+update', front: s.front, counters: c, fsync: false,
      files, bloomKeys: 0, bloomBitsPerKey: s.opts.bloomBitsPerKey, learn: false,
      emit: (buf, start, end) => req.onNew(decoder.decode(buf.subarray(start, end))),
      worker: { pool: s.pool, minRecords: s.opts.tuning.workerDispatchMin },
    });
    for (const [b, w] of res.written) {
      const old = overlay.get(b);
      overlay.set(b, { path: w.path, keys: w.file.keys, bytes: w.file.bytes });
      if (old) fs.rmSync(old.path, { force: true });
    }
    round++;
    s.nextRound();
  };
  s.front.startRound();
  const tooLong: Reject[] = [];
  const countRejects = (rs: readonly Reject[]): void => {
    c.rejectedLines += rs.length;
    c.linksRead += rs.length;
  };
  const inputErrors = await readLoop(s, {
    inputs, from: { input: 0, offset: 0, line: 0 }, skip: inputs.map(() => false), read: req,
    onBytes: () => {},
    onChunk: (p) => {
      countRejects(p.rejects);
      s.front.route(p, s.core, c, tooLong, false);
      countRejects(tooLong);
      tooLong.length = 0;
      if (mergeDue(s)) return runRound(false);
    },
    onInputDone: () => {},
    learn: false,
  });
  await runRound(true);
  return { linksRead: c.linksRead, newUrls: c.uniqueUrls, rejectedLines: c.rejectedLines, inputErrors };
}
