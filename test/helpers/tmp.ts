// Test helper: fresh temporary directories under the OS temp dir, removed
// after the test file finishes. Test-only; nothing in src/ uses it.

import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'drum-test-'): string {
  const d = fs.mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Path of a shared data set beside the repo (../shared/datasets/...), or null when absent. */
export function sharedData(rel: string): string | null {
  const p = join(process.cwd(), '..', 'shared', 'datasets', rel);
  return fs.existsSync(p) ? p : null;
}
