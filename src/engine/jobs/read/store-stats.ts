// Drum.stats(): the committed store's size (key, values, Bloom and journal
// files) and parameters, the Bloom file,
// the expected number of colliding keys (from the host table's biggest
// hosts) and the recent runs. Reads only.

import { join } from 'node:path';
import { Catalog } from '../../../catalog/catalog.js';
import { expectedCollisions } from '../../../fingerprint/key.js';
import { readBloom } from '../../../tiers/bloom-file.js';
import { diskUsage } from '../../../stats/disk-usage.js';
import type { StoreStats } from '../../api.js';
import type { Session } from '../../session/session.js';
import { chainFiles } from '../../../store/values/value-chain.js';

export async function storeStats(s: Session): Promise<StoreStats> {
  const b = s.store.body;
  let storeBytes = 0;
  let valuesBytes = 0;
  let files = 0;
  for (const e of b.buckets) {
    if (e) {
      storeBytes += e.bytes;
      files++;
    }
    if (e?.values) {
      for (const f of chainFiles(e.values)) {
        valuesBytes += f.bytes;
        files++;
      }
    }
  }
  storeBytes += valuesBytes;
  let bloom: StoreStats['bloom'] = null;
  if (b.bloom) {
    const size = s.dfs.size(join(s.dir, b.bloom.file));
    const f = await readBloom(s.dfs, join(s.dir, b.bloom.file));
    bloom = { bitsPerKey: b.bloom.bitsPerKey, sizeBytes: size, keys: b.bloom.keys, expectedFpRate: f.expectedFpRate() };
    files++;
    storeBytes += size;
  }
  // The key journal: stored URLs no fold has merged into the key files yet.
  const journal = b.journal === undefined ? null : { keys: b.journal.keys, bytes: b.journal.bytes };
  if (journal !== null) {
    files++;
    storeBytes += journal.bytes;
  }
  // Same-host pairs dominate the collision estimate: use the host table's biggest hosts.
  const hostCounts: number[] = [];
  const cat = s.catalog ?? (await Catalog.open(s.dir, { readOnly: true }));
  try {
    for (const h of await cat.topHosts(1000)) hostCounts.push(h.uniqueUrls);
  } finally {
    if (cat !== s.catalog) await cat.close();
  }
  return {
    stateDir: s.dir,
    formatVersion: b.formatVersion,
    storeUrls: b.storeUrls,
    storeBytes,
    valuesBytes,
    files,
    buckets: b.params.buckets,
    hostBits: b.params.hostBits,
    policy: b.params.policy,
    expectedCollisions: expectedCollisions(b.storeUrls, b.params.hostBits, hostCounts),
    bloom,
    journal,
    recentRuns: b.history.slice().reverse().map((h) => ({
      runId: h.runId, status: h.status, startedAt: h.startedAt, uniqueUrls: h.uniqueUrls, linksRead: h.linksRead,
    })),
    disk: diskUsage(s.dir),
  };
}
