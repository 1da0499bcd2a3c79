import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Drum, upgradeStore } from '../../src/engine/drum.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { checkUpdateAll } from '../helpers/drum.js';

describe('canonicalization policy of a store', () => {
  it('reopens a store with the policy it was built with when none is given', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, { canonical: { mode: 'none' }, workers: 0, fsync: false });
    assert.deepEqual(await checkUpdateAll(d, ['http://A.example/#x', 'http://a.example/']), ['http://A.example/#x', 'http://a.example/']);
    await d.close();
    const again = await Drum.open(dir, { workers: 0, fsync: false });
    try {
      assert.equal((await again.stats()).policy, 'none/v1');
      assert.deepEqual(await checkUpdateAll(again, ['http://A.example/#x', 'http://b.example/']), ['http://b.example/']);
    } finally {
      await again.close();
    }
  });

  it('refuses another explicit policy with DRUM_POLICY_MISMATCH unless forced', async () => {
    const dir = tempDir();
    await (await Drum.open(dir, { canonical: { stripWww: true }, workers: 0, fsync: false })).close();
    await assert.rejects(Drum.open(dir, { canonical: {}, workers: 0 }), (e) => isDrumError(e, 'DRUM_POLICY_MISMATCH'));
    const forced = await Drum.open(dir, { canonical: {}, forcePolicy: true, workers: 0, fsync: false });
    await forced.close();
  });

  it('refuses other buckets, host bits or a keys-only store than the store was created with, forced or not', async () => {
    const dir = tempDir();
    await (await Drum.open(dir, { buckets: 8, hostBits: 20, workers: 0, fsync: false })).close();
    for (const o of [{ buckets: 16 }, { hostBits: 24 }, { values: false }, { hostBits: 16, forcePolicy: true }, { buckets: 16, readOnly: true }]) {
      await assert.rejects(Drum.open(dir, { ...o, workers: 0, fsync: false }), (e) => isDrumError(e, 'DRUM_POLICY_MISMATCH'), JSON.stringify(o));
    }
    for (const o of [{}, { buckets: 8, hostBits: 20 }, { values: true }]) {
      const d = await Drum.open(dir, { ...o, workers: 0, fsync: false });
      try {
        const st = await d.stats();
        assert.deepEqual([st.buckets, st.hostBits], [8, 20]);
      } finally {
        await d.close();
      }
    }
  });

  it('refuses values asked of a store created keys-only with DRUM_NEEDS_UPGRADE, which drum upgrade then gives', async () => {
    const dir = tempDir();
    await (await Drum.open(dir, { values: false, workers: 0, fsync: false })).close();
    for (const o of [{ values: true }, { values: true, readOnly: true }]) {
      await assert.rejects(Drum.open(dir, { ...o, workers: 0, fsync: false }), (e) => isDrumError(e, 'DRUM_NEEDS_UPGRADE'), JSON.stringify(o));
    }
    await (await Drum.open(dir, { workers: 0, fsync: false })).close();
    assert.equal((await upgradeStore(dir, { workers: 0, fsync: false })).upgraded, true);
    await (await Drum.open(dir, { values: true, workers: 0, fsync: false })).close();
  });

  it('has upgradeStore refuse buckets or host bits other than the store has, and a keys-only store asked of it, changing nothing', async () => {
    const dir = tempDir();
    await (await Drum.open(dir, { buckets: 8, hostBits: 20, values: false, workers: 0, fsync: false })).close();
    for (const [o, code] of [[{ buckets: 16 }, 'DRUM_POLICY_MISMATCH'], [{ hostBits: 24 }, 'DRUM_POLICY_MISMATCH'], [{ values: false }, 'DRUM_BAD_OPTION']] as const) {
      await assert.rejects(upgradeStore(dir, { ...o, workers: 0, fsync: false }), (e) => isDrumError(e, code), JSON.stringify(o));
    }
    // Still keys only: values asked of it are refused until an upgrade with the store's own parameters gives them.
    await assert.rejects(Drum.open(dir, { values: true, workers: 0, fsync: false }), (e) => isDrumError(e, 'DRUM_NEEDS_UPGRADE'));
    assert.equal((await upgradeStore(dir, { buckets: 8, hostBits: 20, workers: 0, fsync: false })).upgraded, true);
    await assert.rejects(upgradeStore(dir, { values: false, workers: 0, fsync: false }), (e) => isDrumError(e, 'DRUM_BAD_OPTION'), 'a store with values');
  });
});
