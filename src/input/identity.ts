// Input identity for "already ingested?" checks: size + SHA-256 of the raw
// file, either over the whole file ('full') or over size + first and last MiB
// ('sampled', constant cost; see docs/inputs.md for the trade-off). Does not
// decompress (it identifies the bytes on disk) and refuses stdin.

import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { inputError } from './open.js';

export type IdentityMethod = 'full' | 'sampled';

export interface InputIdentity {
  bytes: number;
  /** Lowercase hex SHA-256 (of the whole file, or of the sample for 'sampled'). */
  sha256: string;
  method: IdentityMethod;
}

/** Bytes hashed at each end of the file by the sampled method. */
export const SAMPLE_BYTES = 1 << 20;
const READ = 1 << 20;

/**
 * Size and SHA-256 of a file. 'full' (default) hashes every byte; 'sampled'
 * hashes the 8-byte size, the first and the last SAMPLE_BYTES (the whole file
 * when it is at most 2 × SAMPLE_BYTES, which then equals no 'full' hash:
 * the size prefix keeps the two methods apart). DRUM_INPUT on `-` or errors.
 */
export async function inputIdentity(path: string, opts: { method?: IdentityMethod } = {}): Promise<InputIdentity> {
  const method = opts.method ?? 'full';
  if (path === '-') throw inputError(path, 'stdin has no identity:');
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw inputError(path, 'cannot open input', e);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    const size = st.size;
    const h = createHash('sha256');
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(READ, size))); // no bigger than the file
    const hashRange = async (from: number, to: number) => {
      for (let pos = from; pos < to; ) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, to - pos), pos);
        if (bytesRead === 0) break;
        h.update(buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
    };
    if (method === 'full') {
      await hashRange(0, size);
    } else {
      const len = Buffer.alloc(8);
      len.writeBigUInt64BE(BigInt(size));
      h.update(len);
      if (size <= 2 * SAMPLE_BYTES) {
        await hashRange(0, size);
      } else {
        await hashRange(0, SAMPLE_BYTES);
        await hashRange(size - SAMPLE_BYTES, size);
      }
    }
    return { bytes: size, sha256: h.digest('hex'), method };
  } catch (e) {
    throw inputError(path, 'cannot read input', e);
  } finally {
    await fh.close().catch(() => {});
  }
}
