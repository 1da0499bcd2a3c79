import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distRoot } from '../helpers/cli.js';

// Opens descriptors until EMFILE, frees `free` of them, then loads the engine: its imports hit EMFILE.
const CHILD = `
import * as fs from 'node:fs';
const { loadEngine } = await import(process.argv[1]);
const free = Number(process.argv[2]);
const fds = [];
try { for (;;) fds.push(fs.openSync('/dev/null', 'r')); } catch {}
for (let i = 0; i < free; i++) fs.closeSync(fds.pop());
let out;
try { await loadEngine(); out = { ok: true }; } catch (e) { out = { code: e.code ?? 'raw', message: String(e.message) }; }
for (const fd of fds) fs.closeSync(fd);
console.log(JSON.stringify(out));
`;

describe('loading the engine', { skip: process.platform === 'win32' && 'needs ulimit' }, () => {
  it('reports running out of file descriptors while loading as DRUM_IO with EMFILE, never as an engine that is not built', () => {
    const engine = pathToFileURL(join(distRoot, 'src', 'cli', 'engine.js')).href;
    const seen: string[] = [];
    for (let free = 0; free <= 30; free += 2) {
      const r = spawnSync('bash', ['-c', `ulimit -n 160 && exec "$0" --input-type=module -e "$1" "$2" "$3"`, process.execPath, CHILD, engine, String(free)], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok?: boolean; code?: string; message?: string };
      if (out.ok) continue;
      seen.push(out.code!);
      assert.equal(out.code, 'DRUM_IO', `${free} free descriptors: ${JSON.stringify(out)}`);
      assert.match(out.message!, /EMFILE|file descriptors/, `${free} free descriptors`);
    }
    assert.ok(seen.length > 0, 'no load failed: the descriptor limit was not reached');
  });
});
