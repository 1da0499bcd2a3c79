// The reader's copy of a live catalog (openReaderDb) while a writer in the
// same process writes with a millisecond's pause into a LevelDB whose small
// write buffer makes it flush every other batch and compact every few
// flushes (it overwrites a few thousand records in turn, so the catalog stays
// small), so logs and tables are deleted while copies are taken: far more
// churn than drum's own catalog sees. Every copy opens, and it holds a past
// state: every record written before it began, and never fewer records than
// a copy taken before it.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { openReaderDb } from '../../src/catalog/snapshot.js';

/** Records the writer cycles through: overwrites keep the catalog small while compactions run. */
const KEYS = 3000;
/** The writer's pause between batches of 50 records (30 KB): a flush every other batch, a compaction every few flushes. */
const PAUSE_MS = 1;
/** Copies taken while it writes. */
const COPIES = 100;
const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('openReaderDb', () => {
  it('opens a consistent copy every time while a writer flushes and compacts the catalog', async () => {
    const state = mkdtempSync(join(tmpdir(), 'drum-snapshot-test-'));
    temps.push(state);
    const dir = join(state, 'catalog');
    const writer = new Level<string, string>(dir, { writeBufferSize: 32 * 1024 });
    await writer.open();
    let written = 0;
    let writing = true;
    const tablesSeen = new Set<string>();
    const write = (async (): Promise<void> => {
      while (writing) {
        const batch = writer.batch();
        for (let i = 0; i < 50; i++, written++) batch.put(`run:${String((written * 7919) % KEYS).padStart(8, '0')}`, randomBytes(600).toString('base64')); // incompressible: tables fill
        await batch.write();
        await new Promise((r) => setTimeout(r, PAUSE_MS));
        for (const n of readdirSync(dir)) if (n.endsWith('.ldb')) tablesSeen.add(n);
      }
    })();
    try {
      let previous = 0;
      for (let copy = 0; copy < COPIES; copy++) {
        const atStart = written;
        const { db, temp } = await openReaderDb(state, dir);
        try {
          const n = (await db.keys({ gte: 'run:', lt: 'run;' }).all()).length;
          assert.ok(n >= previous, `copy ${copy} holds ${n} records, an earlier one ${previous}`);
          assert.ok(n >= Math.min(atStart - 50, KEYS), `copy ${copy} holds ${n} records, ${atStart} were written before it began`);
          previous = n;
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
});
