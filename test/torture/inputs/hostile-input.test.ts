// Hostile input through the whole engine (short seeded run; scripts/torture.ts
// runs longer and adds the 1 GB no-newline file and the 10^6-host and
// 10^6-URL-host inputs): fast-check byte strings of URL pieces, NULs, invalid
// UTF-8, controls, huge lines and hosts, `[`, `%`, `\`, ingested from a temp
// file. Nothing may throw; every link line is accounted for, every rejected
// line is in rejects.tsv with its line number, reason and first bytes, and
// the unique files hold exactly the URLs the model calls new.

import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { tempDir } from '../../helpers/tmp.js';
import { checkHostile, checkUpdateAgrees, hostileBytes, linkLines, openHostile, type HostileContext } from './hostile.js';

describe('hostile bytes through the engine', () => {
  let ctx: HostileContext | null = null;
  after(async () => {
    await ctx?.drum.close();
  });

  it('counts the model\'s link lines for CRLF, BOM, blank, comment and too-long lines', () => {
    const b = Buffer.from(`\uFEFFhttp://a.example/\r\n\n  \t\n  # c\nx\n${'y'.repeat(2049)}\nlast`, 'utf8');
    assert.deepEqual(linkLines(b), [1, 5, 6, 7]);
  });

  it('ingests fuzzed byte strings without a throw, accounting for every line in the outputs', async () => {
    ctx = await openHostile(tempDir());
    const c = ctx;
    await fc.assert(
      fc.asyncProperty(hostileBytes, async (bytes) => {
        const problems = await checkHostile(c, bytes);
        assert.deepEqual(problems, []);
      }),
      { seed: 4242, numRuns: 80 },
    );
    assert.ok(c.seen.size > 20, `some URLs got through: ${c.seen.size}`);
  });

  it('yields the same new URLs through checkUpdate, whatever the piece boundaries', async () => {
    const dir = tempDir();
    await fc.assert(
      fc.asyncProperty(hostileBytes, fc.integer({ min: 1, max: 9 }), async (bytes, pieces) => {
        assert.deepEqual(await checkUpdateAgrees(dir, bytes, pieces), []);
      }),
      { seed: 4243, numRuns: 30 },
    );
  });
});
