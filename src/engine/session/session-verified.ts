// Which bucket files a session may trust without reading them again: key
// files it verified or wrote (a later job's check before writing skips
// them), and every bucket file it read whole or wrote with its identity
// then, which verified.cache hands to the next writer (store/verified-cache.ts).
// Loads what an earlier writer vouched for at open. Does not read the files
// itself beyond verifyKeyFiles (store/verify.ts) or decide when to save.
// REQUIRES: a writer's store for loading and saving (a reader keeps nothing).

import { join } from 'node:path';
import type { DrumFs } from '../../io/fs.js';
import type { Store } from '../../store/store.js';
import { verifyKeyFiles, type StoreVerifyResult } from '../../store/verify.js';
import { fileIdentity, loadVerified, saveVerified } from '../../store/verified-cache.js';
import { DELTA_FILE_SUFFIX, VALUES_FILE_SUFFIX } from '../../store/values/values-format.js';
import { chainFiles } from '../../store/values/value-chain.js';

/** True for a key file's name (not a values file or a values delta). */
const isKeyFile = (f: string): boolean => !f.endsWith(VALUES_FILE_SUFFIX) && !f.endsWith(DELTA_FILE_SUFFIX);

export class VerifiedFiles {
  /** Key files this session verified or wrote: a later job's verification before writing skips them. */
  private readonly knownGood = new Set<string>();
  /** Bucket files (key and values) this session read whole or wrote, with their identity then (verified.cache). */
  private readonly vouched = new Map<string, Uint32Array>();

  constructor(
    private readonly dfs: DrumFs,
    private readonly dir: string,
    private readonly store: Store,
    private readonly readOnly: boolean,
  ) {
    // Bucket files an earlier writer read whole or wrote, unchanged since: the check before a write skips them.
    if (readOnly) return;
    for (const [f, id] of loadVerified(dir, store.committed, store.body)) {
      this.vouched.set(f, id);
      if (isKeyFile(f)) this.knownGood.add(f);
    }
  }

  /**
   * The check before a job writes: every key file this session has not
   * already verified or written itself (a long-running process reads the
   * store once, not before every batch; its merges check each block they
   * read by CRC anyway).
   */
  verifyBeforeWrite(): StoreVerifyResult {
    const body = this.store.body;
    // Identities before the read: a change during or after it makes the next writer read the file again.
    const before = new Map<string, Uint32Array>();
    for (const e of body.buckets) {
      if (!e || this.knownGood.has(e.file)) continue;
      before.set(e.file, fileIdentity(join(this.dir, e.file)));
      if (e.values !== undefined) for (const f of chainFiles(e.values)) before.set(f.file, fileIdentity(join(this.dir, f.file)));
    }
    const r = verifyKeyFiles(this.dfs, this.dir, body, this.knownGood);
    // Recorded with the other caches when the store closes after a commit (a refused run writes nothing).
    if (r.ok) {
      for (const [f, id] of before) this.vouched.set(f, id);
      for (const e of body.buckets) if (e) this.knownGood.add(e.file);
    }
    return r;
  }

  /** After a commit: its written key files are known good, and each written file is vouched for with its identity now. */
  written(files: Iterable<string>): void {
    for (const f of files) {
      if (!this.readOnly) this.vouched.set(f, fileIdentity(join(this.dir, f)));
      if (isKeyFile(f)) this.knownGood.add(f);
    }
  }

  /** Records the committed bucket files this session verified or wrote, for the next writer's check. */
  save(): void {
    if (!this.readOnly) saveVerified(this.dfs, this.dir, this.store.committed, this.store.body, this.vouched);
  }
}
