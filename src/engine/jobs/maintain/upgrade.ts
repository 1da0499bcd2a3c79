// `drum upgrade`: gives a keys-only store values (docs/file-format.md, "URL
// value"). A store written by a drum without values is upgraded by any
// writer's open (with a notice); one created keys-only on purpose
// (`--no-values`) only here. Existing URLs get docIDs 0..N-1 in key order
// and the documented sentinels (url-values.ts). A store that already has
// values is left as it is; `values: false` asked of it is refused. Does not
// ingest; touches the key files only to fold the key journal first, which
// rebuilds the Bloom file with a Bloom mode (`opts.bloom`) and drops it
// without (journal-round.ts).

import { DrumError } from '../../../errors.js';
import type { DrumOptions } from '../../../options.js';
import { readManifest } from '../../../store/manifest.js';
import { Session } from '../../session/session.js';
import { upgradeToValues } from '../../session/session-open.js';
import { foldJournal } from '../../url-seen/journal-round.js';

export interface UpgradeResult {
  /** False when the store already had values. */
  upgraded: boolean;
  /** URLs in the store. */
  urls: number;
  /** docIDs handed out (the next new URL gets this one). */
  docIDs: number;
}

/**
 * Gives the store of stateDir values (see the header). `opts` are the open's: buckets or host bits other
 * than the store's are DRUM_POLICY_MISMATCH, as for Drum.open; `values: false` (keys only), which an
 * upgrade cannot honour on any store, is DRUM_BAD_OPTION before the state directory is read.
 */
export async function upgradeStore(stateDir: string, opts: DrumOptions = {}): Promise<UpgradeResult> {
  if (opts.values === false) throw new DrumError('DRUM_BAD_OPTION', 'upgradeStore gives a store values: it cannot be asked for a keys-only store (values: false)');
  if (readManifest(stateDir) === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${stateDir}`, { file: stateDir });
  let upgraded = false;
  // Values not asked of the open (a keys-only store would refuse them): a store written before values gets them there, one created keys-only below.
  const s = await Session.open(stateDir, { ...opts, readOnly: false, values: undefined, onNotice: () => void (upgraded = true) });
  try {
    if (!s.valued) {
      // Journaled keys get their values with the rest: they are folded into the bucket files first.
      await foldJournal(s);
      upgradeToValues(s.store, s.dfs, s.opts.fsync);
      upgraded = true;
    }
    return { upgraded, urls: s.store.body.storeUrls, docIDs: s.store.body.docIDs ?? 0 };
  } finally {
    await s.close();
  }
}
