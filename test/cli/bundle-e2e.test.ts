// End-to-end tests of the bundled CLI (dist/cli/, scripts/bundle-cli.ts) and
// of bin/drum's choice between it and the module tree (dist/src/): the build
// puts the bundle's entries and WebAssembly module in place; an ingest with a
// worker thread and a compact with its fold child give the same outputs from
// both; bin/drum takes the bundle only when it is at least as new as the tree.
// Every other end-to-end test runs the bundle too (bin/drum prefers it).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { bin, distRoot, drum, repoRoot, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { spawnSync } from 'node:child_process';

const bundleDir = join(distRoot, 'cli');
const OUTLINKS = join(repoRoot, 'data', 'archive-org-2008-outlinks.tsv.gz');

/**
 * True when the build made a bundle that bin/drum runs (not older than the
 * tree: \`npm run build\` makes both); throws under CI, where \`npm ci\`
 * installs esbuild and must make one.
 */
function bundled(): boolean {
  const mtime = (f: string): number => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : -1);
  const ok = mtime(join(bundleDir, 'main.js')) >= Math.max(0, mtime(join(distRoot, 'src', 'cli', 'main.js')));
  if (!ok && process.env.CI) throw new Error(`no bundle in ${bundleDir} as new as the tree (CI is set: not skipping)`);
  return ok;
}
const SKIP = 'no bundled CLI as new as dist/src: run "npm run build" (it needs esbuild, which npm ci installs)';

describe('the bundled CLI', () => {
  it('is built with its worker, its fold child and the WebAssembly module beside its entry', (t) => {
    if (!bundled()) return t.skip(SKIP);
    for (const f of ['main.js', 'parse-worker.js', 'fold-child-main.js', 'fast-canonical.wasm']) {
      assert.ok(fs.existsSync(join(bundleDir, f)), f);
    }
    assert.ok(fs.readdirSync(bundleDir).length < 60, 'a few files, not the module tree');
  });

  it('writes the same new URLs, rejects, counts and host table as the module tree', async (t) => {
    if (!bundled()) return t.skip(SKIP);
    const runs = await Promise.all(['0', '1'].map(async (unbundled) => {
      const cwd = tempDir();
      const env = { DRUM_UNBUNDLED: unbundled };
      const r = await drum(['ingest', '--json', '--no-fsync', '--workers', '1', '--out', 'o', OUTLINKS], { cwd, env });
      assert.equal(r.status, 0, r.stderr);
      const c = await drum(['compact', '--json', '--no-fsync'], { cwd, env });
      assert.equal(c.status, 0, c.stderr);
      const hosts = await drum(['hosts', '--top', '5'], { cwd, env });
      const report = JSON.parse(r.stdout) as { linksRead: number; newUrls: number; rejectedLines: number };
      return {
        counts: [report.linksRead, report.newUrls, report.rejectedLines],
        urls: uniques(join(cwd, 'o')),
        rejects: fs.readFileSync(join(cwd, 'o', 'rejects.tsv'), 'utf8'),
        folded: (JSON.parse(c.stdout) as { hostDeltas: number }).hostDeltas,
        hosts: hosts.stdout,
      };
    }));
    assert.ok(runs[0]!.urls.length > 3000, 'the outlinks hold thousands of new URLs');
    assert.equal(runs[0]!.folded, 1, 'compact folded the run\'s host counts in its child');
    assert.deepEqual(runs[0], runs[1]);
  });

  it('runs from bin/drum only when it is at least as new as the module tree', () => {
    const dist = tempDir();
    fs.writeFileSync(join(dist, 'package.json'), '{"type":"module"}\n');
    const write = (rel: string, said: string): string => {
      const f = join(dist, rel);
      fs.mkdirSync(join(f, '..'), { recursive: true });
      fs.writeFileSync(f, `export function main() { process.stdout.write(${JSON.stringify(said)}); }\n`);
      return f;
    };
    const tree = write('src/cli/main.js', 'tree');
    const bundle = write('cli/main.js', 'bundle');
    const run = (env: Record<string, string> = {}): string =>
      spawnSync(process.execPath, [bin], { env: { ...process.env, DRUM_DIST_DIR: dist, DRUM_UNBUNDLED: '', ...env }, encoding: 'utf8' }).stdout;
    fs.utimesSync(tree, 1000, 1000);
    fs.utimesSync(bundle, 2000, 2000);
    assert.equal(run(), 'bundle');
    assert.equal(run({ DRUM_UNBUNDLED: '1' }), 'tree');
    fs.utimesSync(tree, 3000, 3000);
    assert.equal(run(), 'tree', 'a tree recompiled after the bundle wins');
    fs.rmSync(bundle);
    assert.equal(run(), 'tree');
  });
});
