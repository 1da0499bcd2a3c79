// Drum.forget under file faults: an OS error at any file operation leaves
// the old or the new state, sound; a full disk before its commit leaves no
// output files, so the same forget into the same outDir runs again; a work
// file of hosts or URLs the disk will not take is DRUM_IO, and nothing is
// forgotten.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { isDrumError } from '../../../../src/errors.js';
import type { DrumOptions } from '../../../../src/options.js';
import type { ForgetRequest } from '../../../../src/engine/api.js';
import { tempDir } from '../../../helpers/tmp.js';
import { withDrum } from '../../../helpers/drum.js';
import { ingestUrls, OPTS, urlsOf } from './forget-fixtures.js';

describe('Drum.forget under file faults', () => {
  it('leaves the old or the new state, sound, when an OS error hits any file operation of the forget', async () => {
    const urls = urlsOf('f.example', 40);
    for (let at = 1; ; at++) {
      const dir = join(tempDir(), 'state');
      await withDrum(dir, OPTS, (d) => ingestUrls(d, dir, urls));
      let ops = 0;
      let failed = false;
      const hook = (): void => {
        if (++ops === at) {
          failed = true;
          throw Object.assign(new Error('injected EIO'), { code: 'EIO' });
        }
      };
      await withDrum(dir, { ...OPTS, faultHook: hook } as DrumOptions, async (d) => {
        await d.forget(urls.slice(0, 10)).catch((e) => {
          if (!isDrumError(e)) throw e;
        });
      }).catch(() => undefined);
      await withDrum(dir, OPTS, async (d) => {
        assert.equal((await d.verify()).ok, true, `fault at op ${at}`);
        const n = (await d.stats()).storeUrls;
        assert.ok(n === 40 || n === 30, `old or new state at op ${at}: ${n}`);
        const back = await ingestUrls(d, dir, urls);
        assert.deepEqual(back, n === 40 ? [] : urls.slice(0, 10));
      });
      if (!failed) break;
    }
  });

  it('leaves no output files when a full disk stops it before its commit, so the same forget into the same outDir runs again', async () => {
    const urls = urlsOf('f.example', 40);
    for (let at = 1; ; at++) {
      const root = tempDir();
      const dir = join(root, 'state');
      const outDir = join(root, 'forgot');
      await withDrum(dir, OPTS, (d) => ingestUrls(d, dir, urls));
      let ops = 0;
      // A full disk: from operation `at` on, every write, open for writing and mkdir fails.
      const hook = (op: string): void => {
        if (++ops >= at && (op === 'write' || op === 'open-write' || op === 'mkdir')) throw Object.assign(new Error('injected ENOSPC'), { code: 'ENOSPC' });
      };
      const stopped = await withDrum(dir, { ...OPTS, faultHook: hook } as DrumOptions, async (d) => {
        return d.forget({ hosts: ['f.example'], outDir }).then(() => false, (e) => {
          assert.ok(isDrumError(e, 'DRUM_IO'), String(e));
          return true;
        });
      }).catch((e) => {
        assert.ok(isDrumError(e, 'DRUM_IO'), String(e));
        return true;
      });
      if (!stopped) break;
      await withDrum(dir, OPTS, async (d) => {
        if ((await d.stats()).storeUrls === 0) return; // committed before the disk filled: done
        const r = await d.forget({ hosts: ['f.example'], outDir });
        assert.equal(r.forgotten, 40, `full disk from op ${at}`);
      });
    }
  });

  it('refuses with DRUM_IO and forgets nothing when the disk will not take its work file of hosts or of URLs', async (t) => {
    if (!fs.existsSync('/dev/full')) return t.skip('needs /dev/full (Linux)');
    const urls = urlsOf('w.example', 10);
    const dir = join(tempDir(), 'state');
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urls);
      // /dev/full refuses every write with ENOSPC: a disk with no room for the work file.
      const cases: [string, ForgetRequest][] = [['forget-hosts.txt', { hosts: ['w.example'] }], ['forget-urls.txt', { urls: urls.slice(0, 3) }]];
      for (const [file, req] of cases) {
        fs.symlinkSync('/dev/full', join(dir, 'work', file));
        await assert.rejects(d.forget(req), (e) => isDrumError(e, 'DRUM_IO'), file);
        fs.rmSync(join(dir, 'work', file), { force: true });
        assert.equal((await d.stats()).storeUrls, 10, file);
      }
      assert.equal((await d.forget({ hosts: ['w.example'] })).forgotten, 10);
    });
  });
});
