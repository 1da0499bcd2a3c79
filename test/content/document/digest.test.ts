// The payload digest: RFC 4648 base32 of SHA-1 as WARC writers declare it,
// the check of a declared digest (base32 or hex, other algorithms unchecked),
// and the exact key taken from the digest's first 8 bytes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base32, checkDeclared, exactKeyOf, sha1 } from '../../../src/content/document/digest.js';

describe('payload digest', () => {
  it('writes SHA-1 in base32 as WARC-Payload-Digest does', () => {
    assert.equal(base32(sha1(Buffer.alloc(0))), '3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });

  it('says whether a declared digest matches, is absent or uses another algorithm', () => {
    const d = sha1(Buffer.from('hello'));
    assert.equal(checkDeclared(`sha1:${base32(d)}`, d), 'match');
    assert.equal(checkDeclared(`SHA1:${base32(d).toLowerCase()}`, d), 'match');
    assert.equal(checkDeclared(`sha1:${d.toString('hex')}`, d), 'match');
    assert.equal(checkDeclared(`sha1:${base32(sha1(Buffer.from('other')))}`, d), 'mismatch');
    assert.equal(checkDeclared('', d), 'absent');
    assert.equal(checkDeclared('sha256:abc', d), 'unchecked');
  });

  it('takes the exact key from the digest first 8 bytes, high word first', () => {
    const d = Buffer.from('0102030405060708090a0b0c0d0e0f1011121314', 'hex');
    const out = new Uint32Array(2);
    exactKeyOf(d, out, 0);
    assert.deepEqual([...out], [0x01020304, 0x05060708]);
  });
});
