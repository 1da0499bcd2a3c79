// The reader's copy of a live catalog (openReaderDb) while a writer in the
// same process writes bursts of batches a millisecond apart (resting between
// bursts, as a catalog writes at commits) into a LevelDB whose small
// write buffer makes it flush every other batch and compact every few
// flushes (it overwrites a few thousand records in turn, so the catalog stays
// small), so logs and tables are deleted while copies are taken: far more
// churn than drum's own catalog sees. Every copy opens, and it holds exactly
// the state after one batch: no earlier than the last batch written before
// it began or than an earlier copy, every key at its latest value then.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Level } from 'level';
import { openReaderDb } from '../../src/catalog/snapshot.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

/** Records the writer cycles through: overwrites keep the catalog small while compactions run. */
const KEYS = 3000;
/** The writer's pause between batches of 50 records (30 KB): a flush every other batch, a compaction every few flushes. */
const PAUSE_MS = 1;
/** After this many batches the writer rests for REST_MS: writers come in bursts (a catalog writes at commits). */
const BURST = 40;
const REST_MS = 40;
/** Records a batch writes (about 30 KB). */
const PER_BATCH = 50;
const keyOf = (w: number): string => `run:${String((w * 7919) % KEYS).padStart(8, '0')}`;
/** Copies taken while it writes. */
const COPIES = 60;

describe('openReaderDb', () => {
  it('opens a consistent copy every time while a writer flushes and compacts the catalog', async () => {
    const state = tempDir('drum-snapshot-test-');
    const dir = join(state, 'catalog');
    const writer = new Level<string, string>(dir, { writeBufferSize: 32 * 1024 });
    await writer.open();
    let batches = 0; // batches whose write completed
    let writing = true;
    const tablesSeen = new Set<string>();
    const write = (async (): Promise<void> => {
      for (let b = 0; writing; b++) {
        const batch = writer.batch();
        // Write w goes to key (w * 7919) mod KEYS and holds w: a state after batch b is known exactly.
        for (let w = b * PER_BATCH; w < (b + 1) * PER_BATCH; w++) batch.put(keyOf(w), `${w}:${randomBytes(600).toString('base64')}`); // incompressible: tables fill
        batch.put('last', String(b));
        await batch.write();
        batches = b + 1;
        await new Promise((r) => setTimeout(r, (b + 1) % BURST === 0 ? REST_MS : PAUSE_MS));
        for (const n of readdirSync(dir)) if (n.endsWith('.ldb')) tablesSeen.add(n);
      }
    })();
    try {
      for (let copy = 0, previous = -1; copy < COPIES; copy++) {
        const done = batches;
        const { db, temp } = await openReaderDb(state, dir);
        try {
          const rows = await db.iterator({ keyEncoding: 'utf8', valueEncoding: 'utf8' }).all() as [string, string][];
          const last = Number(rows.find(([k]) => k === 'last')?.[1] ?? -1);
          assert.ok(last >= done - 1 && last >= previous, `copy ${copy} is at batch ${last}; ${done} were written before it began, an earlier copy was at ${previous}`);
          // The state right after batch `last`: every write of the last KEYS writes, each key holding its latest.
          const end = (last + 1) * PER_BATCH;
          const runs = rows.filter(([k]) => k.startsWith('run:'));
          assert.equal(runs.length, Math.min(end, KEYS), `copy ${copy}: records after batch ${last}`);
          for (const [k, v] of runs) {
            const w = Number(v.slice(0, v.indexOf(':')));
            assert.ok(w < end && w >= end - KEYS && keyOf(w) === k, `copy ${copy}: ${k} holds write ${w}, not its latest before ${end}`);
          }
          previous = last;
        } finally {
          await db.close();
          if (temp !== null) rmSync(temp, { recursive: true, force: true });
        }
      }
    } finally {
      writing = false;
      await write;
      await writer.close();
    }
    const live = new Set(readdirSync(dir).filter((n) => n.endsWith('.ldb')));
    assert.ok([...tablesSeen].some((n) => !live.has(n)), 'compactions deleted tables while copies were taken');
  });

  it('reports a damaged catalog at once when no writer holds the store, without waiting out the retries', async () => {
    const state = tempDir('drum-snapshot-test-');
    const dir = join(state, 'catalog');
    const db = new Level<string, string>(dir);
    await db.open();
    await db.put('run:1', 'x');
    await db.close();
    writeFileSync(join(dir, 'CURRENT'), 'MANIFEST-999999\n');
    const t0 = performance.now();
    await assert.rejects(openReaderDb(state, dir), (e: unknown) => isDrumError(e) && e.code === 'DRUM_CORRUPT_FILE');
    // Ten attempts with their pauses take about 4 s; one copy and open, a few ms.
    assert.ok(performance.now() - t0 < 2000, `took ${Math.round(performance.now() - t0)} ms`);
  });
});
