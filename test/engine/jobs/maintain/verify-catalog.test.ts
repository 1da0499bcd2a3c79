// Tests of the catalog's part of verify: the host table file's CRCs are
// checked, and a damaged one is named as the damaged file.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../../src/catalog/hosts/host-delta.js';
import { checkCatalog } from '../../../../src/engine/jobs/maintain/verify-catalog.js';
import { flipByte } from '../../../helpers/damage.js';
import { tempDir } from '../../../helpers/tmp.js';

async function catalogWithHosts(fold: boolean): Promise<string> {
  const state = tempDir();
  const c = await Catalog.open(state, { sync: false });
  const hosts = new Map<string, number>();
  for (let i = 0; i < 5000; i++) hosts.set(`host${i}.example`, 1 + (i % 7));
  await c.applyHostCounts('r', 0, [encodeHostMap(hosts)]);
  if (fold) await c.compactHosts();
  await c.close();
  assert.equal(await checkCatalog(state, true), null);
  return state;
}

/** Flips a byte of the one file under hosts/ ending in `suffix`; checkCatalog must name that file. */
async function expectNamed(state: string, suffix: string): Promise<void> {
  const [name] = readdirSync(join(state, 'hosts')).filter((n) => n.endsWith(suffix));
  const path = join(state, 'hosts', name!);
  flipByte(path, 5000, 0x20);
  const p = await checkCatalog(state, true);
  assert.equal(p?.code, 'DRUM_CORRUPT_FILE');
  assert.equal(p?.file, path);
}

describe('checkCatalog', () => {
  it('finds a flipped byte in the host table file and names that file', async () => {
    await expectNamed(await catalogWithHosts(true), '.tbl');
  });

  it('finds a flipped byte in a round delta file the catalog names, and names that file', async () => {
    await expectNamed(await catalogWithHosts(false), '.hd');
  });
});
