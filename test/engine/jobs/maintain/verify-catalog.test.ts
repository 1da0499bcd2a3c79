// Tests of the catalog's part of verify: the host table file's CRCs are
// checked, and a damaged one is named as the damaged file.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readdirSync, readSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../../src/catalog/hosts/host-delta.js';
import { checkCatalog } from '../../../../src/engine/jobs/maintain/verify-catalog.js';
import { tempDir } from '../../../helpers/tmp.js';

/** Flips one bit of byte `at` of `path`. */
function flip(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, at);
  b[0] = b[0]! ^ 0x20;
  writeSync(fd, b, 0, 1, at);
  closeSync(fd);
}

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

describe('checkCatalog', () => {
  it('finds a flipped byte in the host table file and names that file', async () => {
    const state = await catalogWithHosts(true);
    const [name] = readdirSync(join(state, 'hosts')).filter((n) => n.endsWith('.tbl'));
    const path = join(state, 'hosts', name!);
    flip(path, 5000);
    const p = await checkCatalog(state, true);
    assert.equal(p?.code, 'DRUM_CORRUPT_FILE');
    assert.equal(p?.file, path);
  });

  it('finds a flipped byte in a round delta file the catalog names, and names that file', async () => {
    const state = await catalogWithHosts(false);
    const [name] = readdirSync(join(state, 'hosts')).filter((n) => n.endsWith('.hd'));
    const path = join(state, 'hosts', name!);
    flip(path, 5000);
    const p = await checkCatalog(state, true);
    assert.equal(p?.code, 'DRUM_CORRUPT_FILE');
    assert.equal(p?.file, path);
  });
});
