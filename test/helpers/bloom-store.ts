// Test helper for the Bloom filter's model-based tests: which stored URLs
// of a model Set neither the store's Bloom file (the one its manifest names)
// nor its key journal answers, and how many keys its key files hold.
// Test-only; makes no assertion and keeps no model.
// REQUIRES: `state` is a closed or quiescent store the test owns; the URLs
// are canonical as the store's policy spells them.

import { join } from 'node:path';
import { keyOfString } from '../../src/fingerprint/key.js';
import { DrumFs } from '../../src/io/fs.js';
import { loadJournal } from '../../src/store/journal/journal-file.js';
import { JournalTable } from '../../src/store/journal/journal-table.js';
import type { ManifestBody } from '../../src/store/manifest.js';
import { readBloom } from '../../src/tiers/bloom-file.js';

/** The URLs of `stored` that neither the Bloom file `m` names (none: no URL is answered by it) nor the key journal holds. */
export async function unanswered(state: string, m: ManifestBody, stored: Iterable<string>): Promise<string[]> {
  const dfs = new DrumFs();
  const bloom = m.bloom ? await readBloom(dfs, join(state, m.bloom.file)) : null;
  const journal = new JournalTable((m.params.valueBytes ?? 0) / 4, m.journal?.keys ?? 0);
  if (m.journal !== undefined) loadJournal(dfs, state, m.journal, journal);
  return [...stored].filter((u) => {
    const [hi, lo] = keyOfString(u, m.params.hostBits);
    return !(bloom?.mayContain(hi, lo) ?? false) && !journal.has(hi, lo);
  });
}

/** Keys in the key files `m` names (the store's keys but the journal's). */
export function keyFileKeys(m: ManifestBody): number {
  return m.buckets.reduce((a, e) => a + (e ? e.keys : 0), 0);
}
