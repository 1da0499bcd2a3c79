// Test helper: the descriptors this process holds open on files under a
// directory (Linux /proc/self/fd), to show that a writer released them.
// Test-only.

import * as fs from 'node:fs';

/** Open descriptors of this process on files under `dir`, as their paths. */
export function openUnder(dir: string): string[] {
  return fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });
}
