import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import type { FsOp } from '../../src/io/fs.js';
import type { DrumOptions } from '../../src/options.js';
import { readManifest } from '../../src/store/manifest.js';
import { tempDir } from '../helpers/tmp.js';
import { isCrash, SimulatedCrash } from '../helpers/crash.js';


function makeInput(dir: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const k = (i * 7919) % 1300;
    lines.push(i % 97 === 0 ? `mailto:someone${i}@example.org` : `http://Host${k % 13}.example/page/${k}#frag`);
  }
  const p = join(dir, 'links.txt');
  fs.writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

const base: DrumOptions = { workers: 0, fsync: false, chunkBytes: 4096, tuning: { maxBucketEntries: 60, urlsPerFile: 150 } };

function outputs(dir: string): Record<string, string> {
  const o: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) if (f !== 'report.json') o[f] = fs.readFileSync(join(dir, f), 'utf8');
  return o;
}

async function ingestOnce(state: string, input: string, out: string, opts: DrumOptions): Promise<void> {
  const d = await Drum.open(state, opts);
  try {
    await d.ingest({ inputs: [input], outDir: out });
  } finally {
    await d.close();
  }
}

describe('crash and resume', () => {
  it('after a crash at any file operation, rerunning the command writes exactly the uninterrupted outputs', async () => {
    const dir = tempDir();
    const input = makeInput(dir);
    const refOut = join(dir, 'ref-out');
    let ops = 0;
    const kinds: FsOp[] = [];
    await ingestOnce(join(dir, 'ref-state'), input, refOut, { ...base, faultHook: (op) => { kinds.push(op); ops++; } });
    const expected = outputs(refOut);
    assert.ok(Object.keys(expected).length >= 4, 'several unique files plus rejects');
    assert.ok(ops > 50);
    // Crash at many points spread over the whole run, including merges and renames.
    const points = new Set<number>();
    for (let k = 1; k < ops; k += Math.max(1, Math.floor(ops / 22))) points.add(k);
    points.add(ops - 1);
    // And at the first of each kind of operation (a rename, a delete, ...), wherever the spacing falls.
    for (const op of new Set(kinds)) points.add(kinds.indexOf(op) + 1);
    const seenOps = new Set<FsOp>();
    for (const k of points) {
      const state = join(dir, `s${k}`);
      const out = join(dir, `o${k}`);
      let n = 0;
      const crashAt = (op: FsOp): void => {
        if (++n === k) {
          seenOps.add(op);
          throw new SimulatedCrash(`crash before ${op} #${k}`);
        }
      };
      await assert.rejects(ingestOnce(state, input, out, { ...base, faultHook: crashAt }), isCrash);
      await ingestOnce(state, input, out, base);
      assert.deepEqual(outputs(out), expected, `crash at op ${k}`);
      const d = await Drum.open(state, { ...base, readOnly: true });
      try {
        assert.equal((await d.verify()).ok, true);
      } finally {
        await d.close();
      }
      assert.equal(readManifest(state)!.run!.status, 'complete');
    }
    assert.ok(seenOps.has('rename') && seenOps.has('write'), [...seenOps].join(','));
  });

  it('leaves the pre-merge state when the crash falls between writing store files and renaming the manifest', async () => {
    const dir = tempDir();
    const input = makeInput(dir);
    const state = join(dir, 'state');
    await ingestOnce(state, input, join(dir, 'o1'), base);
    const before = readManifest(state)!;
    const input2 = join(dir, 'more.txt');
    fs.writeFileSync(input2, Array.from({ length: 500 }, (_, i) => `http://new${i}.example/`).join('\n'));
    const crash = (op: FsOp, path: string): void => {
      if (op === 'rename' && path.endsWith('MANIFEST')) throw new SimulatedCrash('before manifest rename');
    };
    const d = await Drum.open(state, { ...base, faultHook: crash });
    await assert.rejects(d.ingest({ inputs: [input2], outDir: join(dir, 'o2') }), isCrash);
    await d.close();
    const after = readManifest(state)!;
    assert.equal(after.commit, before.commit);
    assert.equal(after.storeUrls, before.storeUrls);
    const d2 = await Drum.open(state, base);
    try {
      assert.equal((await d2.verify()).ok, true);
      const fresh: string[] = [];
      await d2.check({ inputs: [input2], onNew: (u) => fresh.push(u) });
      assert.equal(fresh.length, 500, 'nothing of the crashed round was applied');
    } finally {
      await d2.close();
    }
  });
});
