// Drum.forget of hosts (src/engine/jobs/maintain/forget-hosts.ts): refused
// on a keys-only store, deleting nothing; a host is forgotten by its exact
// name, so another host sharing its key-range fingerprint keeps its URLs;
// URLs whose host check is unknown (stored before an upgrade) are kept and
// counted; a values delta it cannot read closes the bucket's key file and
// forgets nothing.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { upgradeStore } from '../../../../src/engine/drum.js';
import { keyOfString } from '../../../../src/fingerprint/key.js';
import { isDrumError } from '../../../../src/errors.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';
import { withDrum } from '../../../helpers/drum.js';
import { flipByte } from '../../../helpers/damage.js';
import { openUnder } from '../../../helpers/fds.js';
import { hostCounts, ingestUrls, OPTS, urlsOf } from './forget-fixtures.js';

describe('Drum.forget of hosts', () => {
  it('refuses --host on a keys-only store, and deletes nothing', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, { ...OPTS, values: false }, async (d) => {
      await ingestUrls(d, dir, urlsOf('x.example', 3));
      await assert.rejects(d.forget({ hosts: ['x.example'] }), (e) => isDrumError(e, 'DRUM_NEEDS_UPGRADE'));
      assert.equal((await d.stats()).storeUrls, 3);
    });
  });

  it('forgets a host by its exact name: another host sharing its key-range fingerprint keeps its URLs', async () => {
    const dir = join(tempDir(), 'state');
    const hostBits = 2; // four host fingerprints: of eight hosts, some must share one
    const hosts = Array.from({ length: 8 }, (_, i) => `s${i}.example`);
    const prefix = (h: string): number => keyOfString(`http://${h}/`, hostBits)[0] >>> (32 - hostBits);
    // Two hosts with one fingerprint (eight hosts, four fingerprints: there is such a pair).
    const [gone, twin] = hosts.flatMap((a, i) => hosts.slice(i + 1).filter((b) => prefix(a) === prefix(b)).map((b) => [a, b] as const))[0]!;
    const all = hosts.flatMap((h) => urlsOf(h, 5));
    await withDrum(dir, { ...OPTS, hostBits }, async (d) => {
      await ingestUrls(d, dir, all);
      const r = await d.forget({ hosts: [`${gone.toUpperCase()}:80`], urls: [`http://${gone}/p1`, `http://${twin}/p2`] });
      assert.deepEqual(r.hosts, [{ host: gone, forgotten: 5, unknownHost: 0 }]);
      assert.deepEqual([r.forgotten, r.asked, r.repeats, r.notStored], [6, 2, 1, 0]);
      assert.deepEqual(await ingestUrls(d, dir, all), [...urlsOf(gone, 5), `http://${twin}/p2`].sort((a, b) => all.indexOf(a) - all.indexOf(b)));
    });
    const counts = await hostCounts(dir);
    assert.equal(counts.get(gone), 5);
    assert.equal(counts.get(twin), 5);
  });

  it('keeps the URLs whose host check is unknown (stored before an upgrade) and counts them', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, { ...OPTS, values: false }, (d) => ingestUrls(d, dir, urlsOf('u.example', 4)));
    await upgradeStore(dir);
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urlsOf('u.example', 6));
      const r = await d.forget({ hosts: ['u.example'] });
      assert.deepEqual(r.hosts, [{ host: 'u.example', forgotten: 2, unknownHost: 4 }]);
      assert.deepEqual(await ingestUrls(d, dir, urlsOf('u.example', 6)), urlsOf('u.example', 6).slice(4));
    });
  });

  it('closes the key file of a bucket whose values delta it cannot read when forgetting a host, and forgets nothing', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, { ...OPTS, buckets: 1, hostBits: 0, journalKeys: 0 }, async (d) => {
      await ingestUrls(d, dir, urlsOf('v.example', 40));
      await ingestUrls(d, dir, urlsOf('w.example', 5));
      const delta = readManifest(dir)!.buckets[0]!.values!.deltas![0]!;
      // Bit rot in the delta's one block: this process wrote the bucket, so its check before the forget trusts it.
      flipByte(join(dir, delta.file), 40);
      const open = openUnder(join(dir, 'store')).length;
      await assert.rejects(d.forget({ hosts: ['v.example'] }), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
      assert.equal(openUnder(join(dir, 'store')).length, open);
      assert.equal(readManifest(dir)!.storeUrls, 45);
    });
  });
});
