// Tests of the rejects.tsv writer: header, row format, escaping round-trip
// (fast-check over arbitrary bytes), committed length and truncate-on-resume
// giving a file byte-identical to an uninterrupted run's, and its error codes.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DrumFs } from '../../src/io/fs.js';
import { escapeExcerpt, formatReject, REJECTS_HEADER, RejectsWriter, unescapeExcerpt } from '../../src/output/rejects.js';
import { isDrumError } from '../../src/errors.js';
import type { Reject } from '../../src/input/types.js';

let dir = '';
const rej = (line: number, excerpt: string | Buffer, reason: Reject['reason'] = 'invalid-url'): Reject => ({
  input: 0,
  line,
  reason,
  excerpt: typeof excerpt === 'string' ? Buffer.from(excerpt, 'latin1') : excerpt,
});

describe('rejects.tsv writer', () => {
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'drum-rejects-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('escapes tab, newline, CR, backslash and non-printable bytes and keeps printable ASCII', () => {
    const bytes = Buffer.from([0x61, 0x09, 0x0a, 0x0d, 0x5c, 0x00, 0x7f, 0xc3, 0xa9, 0xff, 0x20, 0x7e]);
    assert.equal(escapeExcerpt(bytes), 'a\\t\\n\\r\\\\\\x00\\x7F\\xC3\\xA9\\xFF ~');
  });

  it('round-trips any bytes through escape and unescape into one printable ASCII line', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (u) => {
        const s = escapeExcerpt(u);
        assert.match(s, /^[\x20-\x7e]*$/);
        assert.deepEqual(unescapeExcerpt(s), Buffer.from(u));
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('refuses a malformed escape with DRUM_CORRUPT_FILE', () => {
    assert.throws(() => unescapeExcerpt('a\\q'), (e: unknown) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
    assert.throws(() => unescapeExcerpt('a\\x4'), (e: unknown) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
  });

  it('writes a header row and one input/line/reason/excerpt row per reject', async () => {
    const p = path.join(dir, 'a.tsv');
    const w = RejectsWriter.open(new DrumFs(), p, { fsync: false });
    w.add({ input: 2, line: 17, reason: 'too-long', excerpt: Buffer.from('http://x/\ty') });
    w.addAll([rej(18, 'mailto:a@b', 'unsupported-scheme')]);
    await w.close();
    assert.equal(
      readFileSync(p, 'latin1'),
      REJECTS_HEADER + '2\t17\ttoo-long\thttp://x/\\ty\n0\t18\tunsupported-scheme\tmailto:a@b\n',
    );
  });

  it('moves committedLength only at sync', async () => {
    const p = path.join(dir, 'b.tsv');
    const w = RejectsWriter.open(new DrumFs(), p, { fsync: false });
    assert.equal(w.committedLength(), 0);
    w.add(rej(1, 'x'));
    await w.flush();
    assert.equal(w.committedLength(), 0);
    assert.equal(readFileSync(p).length, w.length());
    await w.sync();
    assert.equal(w.committedLength(), REJECTS_HEADER.length + formatReject(rej(1, 'x')).length);
    await w.close();
  });

  it('resumes by truncating to the committed length, byte-identical to an uninterrupted run', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => rej(i + 1, `http://h/${i}\x00\xff`.repeat(1 + (i % 5))));
    const whole = path.join(dir, 'whole.tsv');
    const w0 = RejectsWriter.open(new DrumFs(), whole, { fsync: false });
    w0.addAll(rows);
    await w0.close();

    const p = path.join(dir, 'resumed.tsv');
    const w1 = RejectsWriter.open(new DrumFs(), p, { fsync: false });
    w1.addAll(rows.slice(0, 1000));
    await w1.sync();
    const committed = w1.committedLength();
    w1.addAll(rows.slice(1000, 2500)); // written past the commit, then the process "dies"
    await w1.close();
    assert.ok(readFileSync(p).length > committed);

    const w2 = RejectsWriter.open(new DrumFs(), p, { resumeLength: committed, fsync: false });
    assert.equal(w2.committedLength(), committed);
    w2.addAll(rows.slice(1000));
    await w2.close();
    assert.deepEqual(readFileSync(p), readFileSync(whole));
  });

  it('refuses to resume a file shorter than its committed length with DRUM_CORRUPT_FILE', () => {
    const p = path.join(dir, 'short.tsv');
    writeFileSync(p, REJECTS_HEADER);
    assert.throws(() => RejectsWriter.open(new DrumFs(), p, { resumeLength: 1000 }), (e: unknown) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === p);
    assert.throws(() => RejectsWriter.open(new DrumFs(), path.join(dir, 'gone.tsv'), { resumeLength: 10 }), (e: unknown) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
  });

  it('reports an unwritable location as DRUM_IO and use after close as DRUM_CLOSED', async () => {
    assert.throws(() => RejectsWriter.open(new DrumFs(), path.join(dir, 'no', 'such', 'dir.tsv')), (e: unknown) => isDrumError(e, 'DRUM_IO'));
    const w = RejectsWriter.open(new DrumFs(), path.join(dir, 'c.tsv'), { fsync: false });
    await w.close();
    assert.throws(() => w.add(rej(1, 'x')), (e: unknown) => isDrumError(e, 'DRUM_CLOSED'));
  });
});
