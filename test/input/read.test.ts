// Tests of readInputs: files, gzip by name and by magic, stdin through the
// `stdin` seam, several inputs, resume offsets, the real Heritrix TSV, WARC
// dispatch, DRUM_INPUT for missing and corrupt inputs (cut ones:
// read-damaged.test.ts), and reuseBuffers (same lines; a chunk kept too long
// reads as empty, not stale).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { readInputs, type InputInfo, type ReadInputsOptions } from '../../src/input/read.js';
import { isDrumError } from '../../src/errors.js';
import type { LineChunk } from '../../src/input/types.js';
import { collect, fileIn, flatten, rejectsWith, urlsOf } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

const OPTS: ReadInputsOptions = { format: 'auto', maxLineBytes: 2048, chunkBytes: 1024 };
const DATA = path.resolve(process.cwd(), '../shared/datasets/heritrix-archive-org-2008');
const OUTLINKS = path.join(DATA, 'outlinks.tsv');
const WARC = path.join(DATA, 'example.warc.gz');
const WARC_READER = path.resolve(process.cwd(), 'src/input/warc/index.ts');

const dir = tempDir('drum-input-');
const file = (name: string, data: string | Buffer): string => fileIn(dir, name, data);
const urls = urlsOf;
const LINES = Array.from({ length: 300 }, (_, i) => `http://example.com/page/${i}`);
const TEXT = LINES.join('\n') + '\n';

/** What a chunk reads as now: its lines, or null once its memory was taken back (empty buffer or arrays). */
function readsAs(c: LineChunk): Omit<ReturnType<typeof flatten>, 'chunks'> | null {
  if (c.count > 0 && (c.buf.length === 0 || c.urlStarts.length === 0)) return null;
  const { links, rejects } = flatten([c]);
  return { links, rejects };
}

/** Reads with reuseBuffers, checking at every chunk that no earlier chunk reads as anything but itself or nothing. */
async function readReusing(
  p: string, o: ReadInputsOptions, stdin?: () => Readable,
): Promise<{ f: ReturnType<typeof readsAs>[]; emptied: number; emptiedBufs: number }> {
  const kept: { c: LineChunk; was: ReturnType<typeof readsAs> }[] = [];
  let emptied = 0;
  let emptiedBufs = 0;
  for await (const c of readInputs([{ path: p }], { ...o, reuseBuffers: true, stdin: stdin?.() })) {
    for (const k of kept) {
      const now = readsAs(k.c);
      if (now === null) emptied++;
      else assert.deepEqual(now, k.was, 'a kept chunk changed: its memory was reused while it still read as itself');
      if (k.c.buf.length === 0) emptiedBufs++;
    }
    // Let the read ahead land: a buffer reused too early would now hold later bytes.
    await new Promise((r) => setImmediate(r));
    kept.push({ c, was: readsAs(c) });
  }
  return { f: kept.map((k) => k.was), emptied, emptiedBufs };
}

const merged = (fs: (ReturnType<typeof readsAs>)[]) => ({ links: fs.flatMap((f) => f!.links), rejects: fs.flatMap((f) => f!.rejects) });

describe('readInputs', () => {
  it('reads a plain file as lines, reporting every raw byte to onBytes', async () => {
    let bytes = 0;
    const infos: InputInfo[] = [];
    const chunks = await collect(
      readInputs([{ path: file('a.txt', TEXT) }], { ...OPTS, onBytes: (n) => (bytes += n), onInput: (i) => infos.push(i) }),
    );
    assert.deepEqual(urls(chunks), LINES);
    assert.equal(bytes, TEXT.length);
    assert.deepEqual(infos, [{ input: 0, path: path.join(dir, 'a.txt'), format: 'lines', gzip: false, rawSize: TEXT.length }]);
    assert.ok(chunks.length > 5, 'small chunkBytes gives several chunks');
  });

  it('gives each chunk of a plain file memory of its own, so detaching one leaves the others intact', async () => {
    const seen: string[] = [];
    for await (const c of readInputs([{ path: file('own.txt', TEXT) }], OPTS)) {
      seen.push(...urls([c]));
      const ab = c.buf.buffer as ArrayBuffer;
      structuredClone(ab, { transfer: [ab] }); // as a transfer to a worker would
      assert.equal(c.buf.byteLength, 0);
    }
    assert.deepEqual(seen, LINES);
  });

  it('reads gzip recognized by the .gz extension', async () => {
    const chunks = await collect(readInputs([{ path: file('b.txt.gz', gzipSync(TEXT)) }], OPTS));
    assert.deepEqual(urls(chunks), LINES);
  });

  it('reads gzip recognized by magic bytes under another name, counting compressed bytes', async () => {
    const gz = gzipSync(TEXT);
    let bytes = 0;
    const chunks = await collect(readInputs([{ path: file('c.links', gz) }], { ...OPTS, onBytes: (n) => (bytes += n) }));
    assert.deepEqual(urls(chunks), LINES);
    assert.equal(bytes, gz.length);
    assert.equal(chunks.at(-1)!.endOffset, TEXT.length);
  });

  it('reads stdin through the stdin seam, gzip or plain', async () => {
    const plain = await collect(readInputs([{ path: '-' }], { ...OPTS, stdin: Readable.from([Buffer.from(TEXT)]) }));
    assert.deepEqual(urls(plain), LINES);
    const gz = gzipSync(TEXT);
    const pieces = [gz.subarray(0, 1), gz.subarray(1, 50), gz.subarray(50)];
    const zipped = await collect(readInputs([{ path: '-' }], { ...OPTS, stdin: Readable.from(pieces) }));
    assert.deepEqual(urls(zipped), LINES);
  });

  it('detects TSV from a tab in the first data line and lines otherwise', async () => {
    const infos: InputInfo[] = [];
    const a = file('t.tsv', '# crawl\nhttp://s/\thttp://t/\n');
    const b = file('l.txt', 'http://s/ x\n');
    const chunks = await collect(readInputs([{ path: a }, { path: b }], { ...OPTS, onInput: (i) => infos.push(i) }));
    assert.deepEqual(infos.map((i) => i.format), ['tsv', 'lines']);
    assert.deepEqual(flatten(chunks).links, [[2, 'http://t/', 'http://s/'], [1, 'http://s/ x', '']]);
  });

  it('numbers several inputs by their position in the list', async () => {
    const a = file('m1.txt', 'http://a/\n');
    const b = file('m2.txt.gz', gzipSync('http://b/\nhttp://c/\n'));
    const chunks = await collect(readInputs([{ path: a }, { path: b }, { path: a }], OPTS));
    assert.deepEqual(chunks.map((c) => [c.input, c.count]), [[0, 1], [1, 2], [2, 1]]);
  });

  it('resumes a plain and a gzip input from a chunk endOffset with exactly the remaining lines', async () => {
    for (const p of [file('r.txt', TEXT), file('r.txt.gz', gzipSync(TEXT))]) {
      const full = await collect(readInputs([{ path: p }], OPTS));
      const mid = full[Math.floor(full.length / 2)]!;
      let bytes = 0;
      const rest = await collect(
        readInputs([{ path: p, startOffset: mid.endOffset, startLine: mid.endLine }], { ...OPTS, onBytes: (n) => (bytes += n) }),
      );
      const want = flatten(full).links.filter((l) => l[0] > mid.endLine);
      assert.deepEqual(flatten(rest).links, want);
      assert.equal(rest.at(-1)!.endOffset, TEXT.length);
      if (!p.endsWith('.gz')) assert.equal(bytes, TEXT.length, 'skipped bytes count as consumed');
    }
  });

  it('skips a TSV header when resuming before it but not after it', async () => {
    const p = file('h.tsv', '# c\nsrc\tdst\nsrc-page\t/relative\n'); // row 3 has no :// either
    const before = await collect(readInputs([{ path: p, startOffset: 4, startLine: 1 }], OPTS));
    assert.deepEqual(flatten(before).links, [[3, '/relative', 'src-page']]);
    const after = await collect(readInputs([{ path: p, startOffset: 12, startLine: 2 }], OPTS));
    assert.deepEqual(flatten(after).links, [[3, '/relative', 'src-page']]);
  });

  it('fails with DRUM_INPUT when the resume offset is past the end', async () => {
    await rejectsWith(collect(readInputs([{ path: file('s.txt', 'http://a/\n'), startOffset: 99 }], OPTS)), 'DRUM_INPUT');
    await rejectsWith(collect(readInputs([{ path: file('s.gz', gzipSync('http://a/\n')), startOffset: 99 }], OPTS)), 'DRUM_INPUT');
  });

  it('rejects a multi-megabyte line without newline from stdin and goes on', async () => {
    const mb = Buffer.alloc(1 << 20, 0x62);
    async function* gen() {
      yield Buffer.from('http://a/\n');
      for (let i = 0; i < 8; i++) yield mb;
      yield Buffer.from('\nhttp://z/\n');
    }
    const chunks = await collect(readInputs([{ path: '-' }], { ...OPTS, stdin: gen() }));
    const f = flatten(chunks);
    assert.deepEqual(f.links.map((l) => l[1]), ['http://a/', 'http://z/']);
    assert.deepEqual(f.rejects, [[2, 'too-long', 'b'.repeat(200)]]);
    for (const c of chunks) assert.ok(c.buf.length <= OPTS.chunkBytes + OPTS.maxLineBytes + 1);
  });

  it('resolves an empty TSV target to its source and keeps `empty` for a row without a target field', async () => {
    const p = file('self.tsv', 'src\tdst\nhttp://a.example/x\t\nhttp://a.example/y\n\t \nhttp://a.example/z\t#f\n');
    const f = flatten(await collect(readInputs([{ path: p }], { ...OPTS, format: 'tsv' })));
    assert.deepEqual(f.links, [[2, 'http://a.example/x', 'http://a.example/x'], [5, '#f', 'http://a.example/z']]);
    assert.deepEqual(f.rejects.map((r) => [r[0], r[1]]), [[3, 'empty']]);
  });

  it('reads a FIFO as a stream', { skip: process.platform === 'win32' }, async () => {
    const fifo = path.join(dir, 'links.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = writeFile(fifo, TEXT); // its open waits on the threadpool for the reader's
    const u = urls(await collect(readInputs([{ path: fifo }], OPTS)));
    await writer;
    assert.deepEqual(u, LINES);
  });

  it('fails with DRUM_INPUT naming a missing file', async () => {
    const missing = path.join(dir, 'nope.txt');
    await assert.rejects(collect(readInputs([{ path: missing }], OPTS)), (e: unknown) => isDrumError(e, 'DRUM_INPUT') && e.file === missing);
  });

  it('fails with DRUM_INPUT on a directory and on a .gz file that is not gzip', async () => {
    const d = path.join(dir, 'adir');
    mkdirSync(d);
    await rejectsWith(collect(readInputs([{ path: d }], OPTS)), 'DRUM_INPUT');
    await rejectsWith(collect(readInputs([{ path: file('fake.gz', TEXT) }], OPTS)), 'DRUM_INPUT');
  });

  it('lists the 38,277 links of the real Heritrix outlinks.tsv and skips its header', { skip: !existsSync(OUTLINKS) }, async () => {
    const chunks = await collect(readInputs([{ path: OUTLINKS }], { ...OPTS, chunkBytes: 1 << 20 }));
    const f = flatten(chunks);
    assert.equal(f.links.length, 38277);
    assert.deepEqual(f.rejects, []);
    assert.equal(f.links[0]![0], 2);
    const lines = readFileSync(OUTLINKS, 'latin1').split('\n');
    const [src, dst] = lines[1]!.split('\t');
    assert.deepEqual(f.links[0], [2, dst, src]);
    assert.equal(chunks.at(-1)!.endLine, 38278);
  });

  it('hands a WARC input to the WARC reader', { skip: !existsSync(WARC) || !existsSync(WARC_READER) }, async () => {
    const infos: InputInfo[] = [];
    const chunks = await collect(readInputs([{ path: WARC }], { ...OPTS, chunkBytes: 1 << 20, onInput: (i) => infos.push(i) }));
    assert.equal(infos[0]!.format, 'warc');
    assert.ok(flatten(chunks).links.length > 1000);
  });

  it('reuses a read buffer only after every chunk cut from it was consumed', async () => {
    const p = file('reuse.txt', TEXT);
    const want = flatten(await collect(readInputs([{ path: p }], OPTS)));
    const { f, emptied, emptiedBufs } = await readReusing(p, OPTS);
    assert.deepEqual(merged(f), { links: want.links, rejects: want.rejects });
    assert.ok(f.length > 5 && emptied > 0, 'kept chunks read as empty once their memory was reused');
    assert.ok(emptiedBufs > 0, 'a reused read buffer leaves the chunks cut from it empty');
  });

  it('gives the same lines with reuseBuffers as without, for plain, gzip and stdin inputs and tiny chunks (fast-check)', async () => {
    const lineArb = fc.oneof(
      fc.nat(50).map((n) => `http://h.example/${'p'.repeat(n)}`),
      fc.constant('http://s/\thttp://t/'), fc.constant(''), fc.constant('# c'), fc.constant('x'.repeat(90)),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { maxLength: 120 }),
        fc.constantFrom(16, 40, 100),
        fc.constantFrom('plain', 'gzip', 'stdin'),
        async (lines, chunkBytes, kind) => {
          const text = lines.join('\n') + '\n';
          const data = kind === 'gzip' ? gzipSync(text) : Buffer.from(text, 'latin1');
          const p = kind === 'stdin' ? '-' : file(`prop-${run++}${kind === 'gzip' ? '.gz' : '.txt'}`, data);
          const o = { ...OPTS, chunkBytes, maxLineBytes: 60 };
          const stdin = () => Readable.from([data.subarray(0, 7), data.subarray(7)]);
          const want = flatten(await collect(readInputs([{ path: p }], { ...o, stdin: stdin() })));
          const { f } = await readReusing(p, o, stdin);
          assert.deepEqual(merged(f), { links: want.links, rejects: want.rejects });
        },
      ),
      { seed: 4242, numRuns: 120 },
    );
  });
});
