import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import type { DrumOptions } from '../../src/options.js';
import { tempDir } from '../helpers/tmp.js';

function file(dir: string, name: string, lines: string[]): string {
  const p = join(dir, name);
  fs.writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

async function checked(d: Drum, input: string): Promise<string[]> {
  const out: string[] = [];
  await d.check({ inputs: [input], onNew: (u) => out.push(u) });
  return out;
}

describe('check on a writable store', () => {
  // Every tier that could remember a checked URL: line memo, recent table, hot cache (promotions), Bloom filter.
  const configs: [string, DrumOptions][] = [
    ['default tiers', {}],
    ['inline parsing', { workers: 0 }],
    ['Bloom gate', { bloom: 'gate' }],
    ['lossy Bloom', { bloom: 'lossy' }],
  ];
  for (const [name, o] of configs) {
    it(`leaves nothing behind that would call a checked URL seen when it is ingested next (${name})`, async () => {
      const dir = tempDir();
      const d = await Drum.open(join(dir, 'state'), { fsync: false, ...o });
      try {
        // A first batch, so the store, tiers.cache and the Bloom filter exist.
        await d.ingest({ inputs: [file(dir, 'a.txt', ['http://a.example/1', 'http://a.example/2'])], outDir: join(dir, 'out-a') });
        const b = file(dir, 'b.txt', ['http://b.example/1', 'http://b.example/2', 'http://b.example/1', 'http://a.example/1']);
        assert.deepEqual(await checked(d, b), ['http://b.example/1', 'http://b.example/2']);
        assert.deepEqual(await checked(d, b), ['http://b.example/1', 'http://b.example/2'], 'a second check says the same');
        const r = await d.ingest({ inputs: [b], outDir: join(dir, 'out-b') });
        assert.equal(r.uniqueUrls, 2);
        assert.equal(fs.readFileSync(join(dir, 'out-b', 'unique-00001.txt'), 'utf8'), 'http://b.example/1\nhttp://b.example/2\n');
        assert.deepEqual(await checked(d, b), [], 'once ingested, nothing is new');
      } finally {
        await d.close();
      }
    });
  }
});
