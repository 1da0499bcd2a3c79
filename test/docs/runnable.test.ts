// The library as documented: every ```ts block of README.md and docs/*.md
// that uses the package is marked `runnable`, compiles in a consumer project
// with TypeScript's default strictness (skipLibCheck false, so the package's
// own types must stand on their own), and runs against a fresh state
// directory; when a ```text block follows it, that is its exact stdout. Each
// block runs in its own temporary directory holding the files the docs name
// (links.tsv.gz, page-links.txt) and gets a few URL lines on stdin.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const DOCS = ['README.md', ...fs.readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

interface Block {
  where: string;
  code: string;
  output: string | null;
}

const FENCE = /^```(\S*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;

/** Runnable blocks, and the names of ts/js blocks that import the package without being runnable. */
function blocks(): { runnable: Block[]; unmarked: string[] } {
  const runnable: Block[] = [];
  const unmarked: string[] = [];
  for (const file of DOCS) {
    const text = fs.readFileSync(join(ROOT, file), 'utf8');
    const all = [...text.matchAll(FENCE)];
    all.forEach((m, i) => {
      const lang = m[1]!;
      const where = `${file}:${text.slice(0, m.index).split('\n').length}`;
      const isCode = ['ts', 'typescript', 'js', 'javascript', 'mjs'].includes(lang);
      if (!isCode) return;
      if (!/\brunnable\b/.test(m[2]!)) {
        if (/from ['"]drum['"]/.test(m[3]!)) unmarked.push(where);
        return;
      }
      const next = all[i + 1];
      const between = next === undefined ? '' : text.slice(m.index + m[0].length, next.index);
      const output = next !== undefined && next[1] === 'text' && between.trim() === '' ? next[3]! : null;
      runnable.push({ where, code: m[3]!, output });
    });
  }
  return { runnable, unmarked };
}

const CONSUMER = `import { Drum, DrumError, isDrumError, type AddResult, type Link, type UrlStream, type RunReport } from 'drum';
const d: Drum = await Drum.open('./state');
const r: AddResult = await d.add([{ url: '/a', source: 'http://example.com/' } satisfies Link]);
const s: UrlStream = d.stream({ format: 'tsv' });
s.on('reject', (x) => console.log(x));
s.end();
const report: RunReport | null = await d.endRun();
console.log(r.newUrls.length, report?.runId, isDrumError(new DrumError('DRUM_CLOSED', 'x')));
await d.close();
`;

const STDIN = 'http://example.com/\nhttp://example.com/about\nhttp://Example.com:80/about#team\n';

describe('the documented API', () => {
  const { runnable, unmarked } = blocks();
  let project = '';
  let compiled: { status: number | null; out: string } = { status: null, out: '' };

  before(() => {
    project = tempDir('drum-docs-');
    fs.mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
    fs.symlinkSync(ROOT, join(project, 'node_modules', 'drum'), 'dir');
    fs.symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'), 'dir');
    fs.writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    fs.writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, skipLibCheck: false, types: ['node'], outDir: 'out' },
      include: ['*.ts'],
    }));
    fs.writeFileSync(join(project, 'consumer.ts'), CONSUMER);
    runnable.forEach((b, i) => fs.writeFileSync(join(project, `block${i}.ts`), b.code));
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { encoding: 'utf8' });
    compiled = { status: r.status, out: `${r.stdout}${r.stderr}` };
  });

  it('marks every ts/js block that imports the package as runnable', () => {
    assert.deepEqual(unmarked, []);
    assert.ok(runnable.length >= 4, `found ${runnable.length} runnable blocks`);
  });

  it('compiles a consumer of the package and every runnable block with skipLibCheck false', () => {
    assert.equal(compiled.out, '');
    assert.equal(compiled.status, 0);
  });

  for (const [i, b] of runnable.entries()) {
    it(`runs the block at ${b.where}${b.output === null ? '' : ' and prints what the docs show'}`, () => {
      assert.equal(compiled.status, 0, compiled.out);
      const cwd = tempDir('drum-doc-run-');
      fs.writeFileSync(join(cwd, 'links.tsv.gz'), gzipSync('source\ttarget\nhttp://example.com/\t/a\nhttp://example.com/\thttp://example.org/\n'));
      fs.writeFileSync(join(cwd, 'page-links.txt'), 'http://example.com/a\nhttp://example.com/new\n');
      const r = spawnSync(process.execPath, [join(project, 'out', `block${i}.js`)], { cwd, input: STDIN, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, `exit ${r.status}\n${r.stderr}`);
      if (b.output !== null) assert.equal(r.stdout, b.output);
    });
  }
});
