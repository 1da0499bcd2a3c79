// Test helper: damages a file in place, as a bad disk or a stray write
// would, so tests can assert drum notices. Test-only.

import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** XORs byte `at` of `path` with `mask` (one bit by default). */
export function flipByte(path: string, at: number, mask = 0x01): void {
  const fd = openSync(path, 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, at);
    b[0] = b[0]! ^ mask;
    writeSync(fd, b, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}
