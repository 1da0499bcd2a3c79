// The error helpers shared by every stage: wrapping OS errors as DRUM_IO and
// reading the OS code back from behind the wrapper.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { DrumError, ioError, osCode } from '../src/errors.js';

function fsError(): unknown {
  try {
    fs.openSync('/nonexistent-dir-of-drum-tests/x', 'r');
  } catch (e) {
    return e;
  }
  assert.fail('expected the open to fail');
}

describe('osCode', () => {
  it('reads the OS code behind a DRUM_IO that ioError wrapped, and of a raw fs error', () => {
    const raw = fsError();
    assert.equal(osCode(raw), 'ENOENT');
    const wrapped = ioError('cannot open', raw, '/x');
    assert.equal(wrapped.code, 'DRUM_IO');
    assert.equal(osCode(wrapped), 'ENOENT');
  });

  it('gives undefined for an error with no OS code', () => {
    assert.equal(osCode(new DrumError('DRUM_CORRUPT_FILE', 'bad')), undefined);
    assert.equal(osCode(new Error('plain')), undefined);
    assert.equal(osCode(undefined), undefined);
  });
});
