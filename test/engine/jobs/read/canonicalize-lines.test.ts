// Tests of canonicalizeLines (the job behind `drum canonicalize`): one
// output line per input line, so the output pastes beside the input, with
// blank, comment and TSV header lines as `!reject<TAB>not-a-link`.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { canonicalizeLines, NOT_A_LINK } from '../../../../src/engine/jobs/read/canonicalize-lines.js';
import { tempDir } from '../../../helpers/tmp.js';

async function run(name: string, text: string, format?: 'lines' | 'tsv'): Promise<string[]> {
  const p = join(tempDir(), name);
  fs.writeFileSync(p, text);
  const out: string[] = [];
  await canonicalizeLines([p], { canonical: {}, ...(format ? { format } : {}) }, (l) => out.push(l));
  return out;
}

describe('canonicalizeLines', () => {
  it('prints exactly one line per input line, blank and comment lines included', async () => {
    const text = 'HTTP://A.example/x\n\n# note\nmailto:me@x\n   \nhttp://b.example/\n\n';
    const out = await run('l.txt', text);
    assert.equal(out.length, text.split('\n').length - 1);
    assert.deepEqual(out, ['http://a.example/x', NOT_A_LINK, NOT_A_LINK, '!reject\tunsupported-scheme', NOT_A_LINK, 'http://b.example/', NOT_A_LINK]);
  });

  it('prints a line for a TSV header too', async () => {
    const out = await run('t.tsv', 'src\tdst\nhttp://a.example/\tb\n', 'tsv');
    assert.deepEqual(out, [NOT_A_LINK, 'http://a.example/b']);
  });
});
