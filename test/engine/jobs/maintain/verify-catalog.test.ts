// Tests of the catalog's part of verify: the host table file's CRCs are
// checked, and a damaged one is named as the damaged file.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readdirSync, readSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../../src/catalog/host-delta.js';
import { checkCatalog } from '../../../../src/engine/jobs/maintain/verify-catalog.js';
import { tempDir } from '../../../helpers/tmp.js';

describe('checkCatalog', () => {
  it('finds a flipped byte in the host table file and names that file', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false });
    const hosts = new Map<string, number>();
    for (let i = 0; i < 5000; i++) hosts.set(`host${i}.example`, 1 + (i % 7));
    await c.applyHostCounts('r', 0, [encodeHostMap(hosts)]);
    await c.compactHosts();
    await c.close();
    assert.equal(await checkCatalog(state, true), null);
    const [name] = readdirSync(join(state, 'hosts'));
    const path = join(state, 'hosts', name!);
    const fd = openSync(path, 'r+');
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, 5000);
    b[0] = b[0]! ^ 0x20;
    writeSync(fd, b, 0, 1, 5000);
    closeSync(fd);
    const p = await checkCatalog(state, true);
    assert.equal(p?.code, 'DRUM_CORRUPT_FILE');
    assert.equal(p?.file, path);
  });
});
