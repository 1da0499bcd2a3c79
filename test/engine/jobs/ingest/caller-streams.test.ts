// Tests of IngestRequest.streams through the library: a stream input the
// caller opened is read from that stream, not from the process's stdin, with
// or without --graph; a --graph run still reads its first bytes ahead and
// refuses one that is not TSV with nothing recorded. The CLI's side (no
// store left behind) is test/cli/graph-e2e.test.ts's.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { isDrumError } from '../../../../src/errors.js';
import { withDrum } from '../../../helpers/drum.js';
import { uniques } from '../../../helpers/cli.js';
import { tempDir } from '../../../helpers/tmp.js';

const OPTS = { workers: 0, fsync: false };
const stdinOf = (text: string): ReadonlyMap<string, Readable> => new Map([['-', Readable.from([Buffer.from(text)])]]);

describe('an ingest of stream inputs the caller opened (IngestRequest.streams)', () => {
  it('reads stdin from the caller\'s stream, with and without --graph', async () => {
    const dir = tempDir();
    await withDrum(join(dir, 'state'), OPTS, async (d) => {
      const plain = await d.ingest({ inputs: ['-'], streams: stdinOf('http://a.example/\nhttp://b.example/\n'), outDir: join(dir, 'o1') });
      assert.equal(plain.linksRead, 2);
      assert.deepEqual(uniques(join(dir, 'o1')), ['http://a.example/', 'http://b.example/']);
      const tsv = 'http://a.example/\thttp://c.example/\nhttp://c.example/\thttp://d.example/\n';
      const graph = await d.ingest({ graph: true, inputs: ['-'], streams: stdinOf(tsv), outDir: join(dir, 'o2') });
      assert.equal(graph.graph?.pairs, 2);
      assert.deepEqual(uniques(join(dir, 'o2')), ['http://c.example/', 'http://d.example/']);
    });
  });

  it('refuses with --graph a caller\'s stream that is not TSV before the run starts: the manifest stays as it was', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await withDrum(state, OPTS, async (d) => {
      await d.ingest({ inputs: ['-'], streams: stdinOf('http://a.example/\n'), outDir: join(dir, 'o1') });
      const manifest = fs.readFileSync(join(state, 'MANIFEST'));
      const refused = new PassThrough();
      refused.write('http://b.example/\nhttp://c.example/\n'); // left open: the run must release it
      await assert.rejects(
        d.ingest({ graph: true, inputs: ['-'], streams: new Map([['-', refused]]), outDir: join(dir, 'o2') }),
        (e) => isDrumError(e, 'DRUM_BAD_OPTION'),
      );
      assert.deepEqual(fs.readFileSync(join(state, 'MANIFEST')), manifest);
      assert.ok(!fs.existsSync(join(dir, 'o2')));
      assert.ok(refused.destroyed, 'a --graph run releases the stream it refused, as documented');
    });
  });
});
