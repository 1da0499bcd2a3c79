// Build step (npm run build:cli, after tsc and the WebAssembly build):
// bundles the compiled CLI into dist/cli/ with esbuild, so that a `drum`
// process loads a few files instead of ~200 modules (Node resolves, reads
// and links each ES module on its own: ~90 ms of a 1-link ingest's ~300).
// Entries: main.js (the CLI; the engine becomes a chunk it loads lazily),
// parse-worker.js and fold-child-main.js (the worker thread and the fold
// child, which their starters find beside themselves by URL), with the
// WebAssembly module copied beside them. Packages stay external (LevelDB's
// native binding, NATS, commander are loaded from node_modules as before).
// Bundles the JavaScript tsc wrote, so the bundle runs exactly that code.
// Does not decide which tree runs: bin/drum takes the bundle when it is
// newer than dist/src/cli/main.js. Without esbuild (a dev dependency) it
// removes any old bundle and says so: drum then runs from dist/src.
// REQUIRES: dist/src built (tsc) and dist/src/canonicalize/fast-canonical.wasm
// built; run from anywhere (paths are taken from this file's place).
// Usage: node dist/scripts/bundle-cli.js

import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(dist, 'cli');
const tree = join(dist, 'src');

/** The bundle's entries by output name: each file that is started by path. */
export const ENTRIES: Readonly<Record<string, string>> = {
  main: join(tree, 'cli', 'main.js'),
  'parse-worker': join(tree, 'engine', 'workers', 'parse-worker.js'),
  'fold-child-main': join(tree, 'catalog', 'hosts', 'fold-child-main.js'),
};

/** Files the bundle's code opens by URL beside itself, copied from the tree. */
export const ASSETS: readonly string[] = [join(tree, 'canonicalize', 'fast-canonical.wasm')];

async function main(): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    process.stderr.write('drum build: esbuild is not installed; the CLI runs from dist/src (a slower start). npm ci installs it.\n');
    return;
  }
  await esbuild.build({
    entryPoints: ENTRIES,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  for (const a of ASSETS) {
    if (existsSync(a)) copyFileSync(a, join(out, a.slice(a.lastIndexOf('/') + 1)));
  }
}

await main();
