// In-process tests of `drum url` (src/cli/commands/docid-commands.ts) with a
// stdin stream the test controls: docIDs read before stdin breaks are
// answered and counted in the summary, then the command fails with
// DRUM_INPUT's exit status (a broken stdin never reads as a short one).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command-io.js';
import { EXIT_STATUS } from '../../../src/errors.js';
import { tempDir } from '../../helpers/tmp.js';

async function drum(args: string[], cwd: string, stdin?: NodeJS.ReadableStream): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    ...(stdin === undefined ? {} : { stdin }),
    env: {},
    cwd,
  };
  const status = await run(args, io);
  return { status, stdout, stderr };
}

/** A stdin that yields `text`, then fails as a read of a broken pipe or disk would. */
function breakingStdin(text: string): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(text);
      } else {
        this.destroy(Object.assign(new Error('read failed'), { code: 'EIO' }));
      }
    },
  });
}

describe('drum url reading stdin', () => {
  it('answers the docIDs read before stdin breaks, prints the summary, then exits with DRUM_INPUT\'s status', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.txt'), 'http://a.example/1\nhttp://b.example/2\nhttp://c.example/3\n');
    const made = await drum(['ingest', '--no-fsync', '--no-progress', '--workers', '0', '--quiet', 'a.txt'], dir);
    assert.equal(made.status, 0, made.stderr);
    const r = await drum(['url', '-'], dir, breakingStdin('2\n0\nzero\n'));
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.deepEqual(r.stdout.split('\n').slice(0, -1).map((l) => l.split('\t')[0]), ['2', '0']);
    assert.match(r.stderr, /^drum: url: 3 docIDs read, 2 printed, 1 rejected$/m);
    assert.match(r.stderr, /^drum: DRUM_INPUT: /m);
  });
});
