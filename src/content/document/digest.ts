// Exact fingerprints of a document's payload: the SHA-1 of the payload bytes
// (the digest WARC writers put in WARC-Payload-Digest, base32 as
// `sha1:XXXX`), the check of a declared digest against it, and the exact
// 64-bit key (the digest's first 8 bytes as two u32 words, hi first).
// Does not read records or decide what the payload is (payload-doc.ts does).
// REQUIRES: nothing; pure functions over bytes and text.

import { createHash } from 'node:crypto';

/** RFC 4648 base32 alphabet, as WARC-Payload-Digest writes SHA-1. */
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** SHA-1 of bytes[start, end). */
export function sha1(bytes: Uint8Array, start = 0, end = bytes.length): Buffer {
  return createHash('sha1').update(bytes.subarray(start, end)).digest();
}

/** RFC 4648 base32 without padding (20 bytes give 32 characters). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < bytes.length; i++) {
    acc = ((acc << 8) | bytes[i]!) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += B32[(acc >>> bits) & 31];
    }
  }
  if (bits > 0) out += B32[(acc << (5 - bits)) & 31];
  return out;
}

/** How a declared WARC-Payload-Digest compares with the digest drum computed. */
export type DigestCheck = 'match' | 'mismatch' | 'absent' | 'unchecked';

/**
 * Compares a declared `sha1:BASE32` (or `sha1:hex`) digest with `digest`.
 * 'absent' when nothing is declared, 'unchecked' for another algorithm.
 */
export function checkDeclared(declared: string, digest: Buffer): DigestCheck {
  if (declared === '') return 'absent';
  const c = declared.indexOf(':');
  if (c < 0 || declared.slice(0, c).trim().toLowerCase() !== 'sha1') return 'unchecked';
  const v = declared.slice(c + 1).trim();
  if (v.length === 40 && /^[0-9a-f]+$/i.test(v)) return v.toLowerCase() === digest.toString('hex') ? 'match' : 'mismatch';
  return v.toUpperCase().replace(/=+$/, '') === base32(digest) ? 'match' : 'mismatch';
}

/** The exact key of a digest: its first 8 bytes, big-endian, as [hi, lo]. */
export function exactKeyOf(digest: Buffer, out: Uint32Array, at: number): void {
  out[at] = digest.readUInt32BE(0);
  out[at + 1] = digest.readUInt32BE(4);
}
