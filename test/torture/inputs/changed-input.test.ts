// Same-size changed inputs: a 3 MiB link list over the whole-hash limit
// (tuning.fullHashMaxBytes set to 64 KiB here, so the sampled identity is
// used as in production over 64 MiB) has one byte changed at many places —
// inside the sampled first and last MiB and in the unsampled middle, in a
// comment line (the URLs stay the same) and in a URL. Every changed file
// must be read again (never skipped as already ingested), and the same file
// unchanged must be skipped after one confirming read.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../../src/engine/drum.js';
import { tempDir } from '../../helpers/tmp.js';

const MIB = 1 << 20;
/** Where a byte is changed: in the sampled ends, in the middle, near the sample boundaries. */
const SPOTS = [100, MIB - 10, MIB + 10, Math.floor(1.5 * MIB), 2 * MIB - 10, 2 * MIB + 10, 3 * MIB - 100];
export const CHANGED_SPOTS = SPOTS.length;

describe('same-size changed inputs', () => {
  it(`reads again a same-size input changed at any of ${SPOTS.length} places, and skips it only when unchanged`, async () => {
    const dir = tempDir();
    const file = join(dir, 'links.txt');
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 3 * MIB; i++) {
      const l = i % 2 === 0 ? `http://h${i % 31}.example/p/${i}` : `# ${'c'.repeat(60)}`;
      lines.push(l);
      size += l.length + 1;
    }
    const original = Buffer.from(`${lines.join('\n')}\n`);
    const d = await Drum.open(join(dir, 'state'), { fsync: false, workers: 0, tuning: { fullHashMaxBytes: 64 * 1024 } });
    try {
      fs.writeFileSync(file, original);
      const first = await d.ingest({ inputs: [file], outDir: join(dir, 'o-first') });
      assert.equal(first.inputs[0]!.skipped, false);
      let k = 0;
      for (const at of SPOTS) {
        const b = Buffer.from(original);
        // A comment byte or a URL byte turns into another printable byte; the size stays.
        b[at] = b[at] === 0x63 ? 0x64 : b[at] === 0x0a ? 0x0a : 0x63;
        if (b[at] === original[at]) b[at + 1] = b[at + 1] === 0x63 ? 0x64 : 0x63;
        fs.writeFileSync(file, b);
        const r = await d.ingest({ inputs: [file], outDir: join(dir, `o-${k++}`) });
        assert.equal(r.inputs[0]!.skipped, false, `changed at byte ${at} but skipped`);
        fs.writeFileSync(file, original);
        const same = await d.ingest({ inputs: [file], outDir: join(dir, `o-${k++}`) });
        assert.equal(same.inputs[0]!.skipped, true, `unchanged after the change at ${at}, yet read again`);
      }
    } finally {
      await d.close();
    }
  });
});

describe('inputs changed while read', () => {
  /** 40,000 distinct URLs of equal length (~1.3 MB: under the whole-hash limit, so hashed whole before the run). */
  const original = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `http://h${i % 97}.example/page/${String(i).padStart(6, '0')}\n`).join(''));
  const count = (b: Buffer): number => new Set(b.toString().split('\n').filter((l) => l !== '')).size;

  for (const [what, change] of [
    ['cut to a quarter', (f: string) => fs.truncateSync(f, Math.floor(original.length / 4))],
    ['rewritten at the same size', (f: string) => fs.writeFileSync(f, Buffer.from(original.toString().replace(/\.example\/page\/(0[2-3])/g, '.example/pagz/$1')))],
  ] as const) {
    it(`never records an input ${what} while read as ingested with the bytes it had before, so the same bytes are read again`, async () => {
      const dir = tempDir();
      const file = join(dir, 'links.txt');
      fs.writeFileSync(file, original);
      const notices: string[] = [];
      const d = await Drum.open(join(dir, 'state'), { fsync: false, workers: 0, chunkBytes: 4096, mergeEvery: 2000, onNotice: (m) => void notices.push(m) });
      try {
        let changed = false;
        const first = await d.ingest({
          inputs: [file], outDir: join(dir, 'o-1'),
          onCommit: () => {
            if (!changed) change(file);
            changed = true;
          },
        });
        assert.ok(changed, 'no round committed while the input was read');
        assert.equal(notices.filter((m) => m.includes(file)).length, 1, `one notice names the input: ${notices.join(' | ')}`);
        fs.writeFileSync(file, original);
        const again = await d.ingest({ inputs: [file], outDir: join(dir, 'o-2') });
        assert.equal(again.inputs[0]!.skipped, false, 'the original bytes were skipped as already ingested');
        // Every URL of the original is stored now: a check of it finds nothing new.
        const unseen: string[] = [];
        await d.check({ inputs: [file], onNew: (u) => void unseen.push(u) });
        assert.deepEqual(unseen, []);
        assert.ok(first.uniqueUrls + again.uniqueUrls >= count(original));
      } finally {
        await d.close();
      }
    });
  }
});
