// The key journal file: batches appended and committed are read back whole;
// bytes past the committed point (an append no manifest named) are ignored
// by readers and overwritten by the next append; a flipped byte, a short
// file, a missing file and a header of another width are DRUM_CORRUPT_FILE
// naming the file.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../../src/io/fs.js';
import { isDrumError } from '../../../src/errors.js';
import { JournalLog, loadJournal } from '../../../src/store/journal/journal-file.js';
import { JOURNAL_HEADER_BYTES, type JournalPoint } from '../../../src/store/journal/journal-format.js';
import { JournalTable } from '../../../src/store/journal/journal-table.js';
import { readManifest, stateWithoutManifest } from '../../../src/store/manifest.js';
import { tempDir } from '../../helpers/tmp.js';
import { flipByte } from '../../helpers/damage.js';

/** n entries of (hi, lo, value words) from `from` on. */
function entries(from: number, n: number, words: number): Uint32Array {
  const e = new Uint32Array(n * (2 + words));
  for (let i = 0; i < n; i++) {
    e[i * (2 + words)] = from + i;
    e[i * (2 + words) + 1] = (from + i) * 7;
    for (let k = 0; k < words; k++) e[i * (2 + words) + 2 + k] = from + i + k;
  }
  return e;
}

function load(dir: string, p: JournalPoint, words = 2): JournalTable {
  const t = new JournalTable(words, 1000);
  loadJournal(new DrumFs(), dir, p, t);
  return t;
}

function store(): string {
  const dir = tempDir();
  fs.mkdirSync(join(dir, 'store'));
  return dir;
}

describe('the key journal file', () => {
  it('reads back every committed batch, and ignores and then overwrites bytes no commit named', () => {
    const dir = store();
    const log = new JournalLog(new DrumFs(), dir, null, 2, true);
    const p1 = log.append(entries(0, 5, 2), 5, 1);
    log.committed(p1);
    const p2 = log.append(entries(5, 3, 2), 3, 2);
    log.committed(p2);
    const lost = log.append(entries(100, 4, 2), 4, 3); // no manifest names it
    log.close();
    assert.ok(fs.statSync(join(dir, p2.file)).size === lost.bytes);
    const t = load(dir, p2);
    assert.equal(t.count, 8);
    assert.equal(t.has(100, 700), false);
    assert.deepEqual([...t.values.subarray(2 * 6, 2 * 7)], [6, 7]);
    // A writer reopening at p2 writes its next batch where the lost one was.
    const again = new JournalLog(new DrumFs(), dir, p2, 2, true);
    const p3 = again.append(entries(8, 2, 2), 2, 4);
    again.close();
    assert.equal(p3.bytes, fs.statSync(join(dir, p3.file)).size);
    assert.equal(load(dir, p3).count, 10);
  });

  it('names the file with DRUM_CORRUPT_FILE for a flipped byte, a short or missing file and another value width', () => {
    const dir = store();
    const log = new JournalLog(new DrumFs(), dir, null, 2, false);
    const p = log.append(entries(0, 20, 2), 20, 1);
    log.close();
    const path = join(dir, p.file);
    const corrupt = (fn: () => unknown): void => {
      assert.throws(fn, (e) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === path);
    };
    corrupt(() => load(dir, p, 6));
    corrupt(() => load(dir, { ...p, keys: 19 }));
    corrupt(() => load(dir, { ...p, bytes: p.bytes + 40 }));
    const good = fs.readFileSync(path);
    flipByte(path, JOURNAL_HEADER_BYTES + 50);
    corrupt(() => load(dir, p));
    fs.writeFileSync(path, good.subarray(0, good.length - 1));
    corrupt(() => load(dir, p));
    fs.rmSync(path);
    corrupt(() => load(dir, p));
  });

  it('counts as state a lost MANIFEST named: a directory holding only a journal is not taken for a new store', () => {
    const dir = store();
    const log = new JournalLog(new DrumFs(), dir, null, 2, false);
    const p = log.append(entries(0, 3, 2), 3, 2);
    log.close();
    assert.deepEqual(stateWithoutManifest(dir), [p.file]);
    assert.throws(() => readManifest(dir), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
  });
});
