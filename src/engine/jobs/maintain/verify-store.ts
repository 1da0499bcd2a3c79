// Drum.verify(): the full check of a committed store — every key file
// (src/store/verify.ts), the Bloom file, the key journal, the URL log
// (src/store/url-log/url-log-verify.ts), the manifest (checked when the store
// opened) and the run catalog (verify-catalog.ts) — as one result that
// collects every problem instead of stopping at the first. Reads only.

import { join } from 'node:path';
import { isDrumError } from '../../../errors.js';
import { readBloom } from '../../../tiers/bloom-file.js';
import { verifyUrlLog } from '../../../store/url-log/url-log-verify.js';
import type { VerifyProblem, VerifyResult } from '../../api.js';
import type { Session } from '../../session/session.js';
import { checkCatalog } from './verify-catalog.js';
import { loadJournal } from '../../../store/journal/journal-file.js';
import { JournalTable } from '../../../store/journal/journal-table.js';

export async function verifyStore(s: Session): Promise<VerifyResult> {
  const r = s.verifyStore();
  const body = s.store.body;
  if (body.bloom) {
    r.filesChecked++;
    try {
      await readBloom(s.dfs, join(s.dir, body.bloom.file));
    } catch (e) {
      if (!isDrumError(e)) throw e;
      r.problems.push({ file: e.file ?? body.bloom.file, code: e.code, message: e.message });
    }
  }
  // The key journal: read again whole (the open read it too, but a long-running process opened long ago).
  if (body.journal !== undefined) {
    r.filesChecked++;
    try {
      loadJournal(s.dfs, s.dir, body.journal, new JournalTable(s.core.valueWords, body.journal.keys));
      r.keysChecked += body.journal.keys;
    } catch (e) {
      if (!isDrumError(e)) throw e;
      r.problems.push({ file: e.file ?? body.journal.file, code: e.code, message: e.message });
    }
  }
  // A store written before the URL log existed has none to check until its next commit.
  if (body.urlLog !== undefined) {
    const u = verifyUrlLog(s.dfs, s.dir, body.urlLog, body.storeUrls, s.valued ? body.docIDs : undefined);
    r.filesChecked += u.filesChecked;
    r.problems.push(...u.problems);
  }
  r.filesChecked++; // the manifest, checked when the store opened
  const cat = await checkCatalog(s.dir, body.history.length > 0);
  const notChecked: VerifyProblem[] = [];
  if (cat !== null && cat.code === 'DRUM_IO') notChecked.push(cat);
  else if (cat !== null) r.problems.push(cat);
  if (notChecked.length === 0) r.filesChecked++;
  return { ok: r.problems.length === 0, filesChecked: r.filesChecked, keysChecked: r.keysChecked, problems: r.problems, notChecked };
}
