// End-to-end tests: spawn the real bin/drum on the build these tests were
// compiled with (DRUM_DIST_DIR = the outDir two levels above this file) and
// check outputs, exit statuses and the report. Engine-backed tests skip
// when the compiled engine is absent; the Heritrix test skips without
// ../shared/datasets. Each test uses its own temp state directory.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXIT_STATUS } from '../../src/errors.js';
import type { RunReport } from '../../src/stats/report.js';
import { bin, distRoot, drum, repoRoot, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { generateWarc } from '../../scripts/gen-warc.js';
import { stateFiles } from '../helpers/state-files.js';

const engineFile = join(distRoot, 'src', 'engine', 'drum.js');
const noEngine = !existsSync(engineFile) || !existsSync(bin);
const heritrix = resolve(repoRoot, '../shared/datasets/heritrix-archive-org-2008/outlinks.tsv');

function write(dir: string, name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}


const A = ['http://a.example/1', 'http://b.example/2', 'http://a.example/1', 'http://c.example/3', 'http://b.example/2'];
const B = ['http://c.example/3', 'http://d.example/4', 'http://a.example/1', 'http://e.example/5', 'http://d.example/4'];
const FAST = ['--no-fsync', '--no-progress', '--workers', '0'];

describe('drum binary without the engine', () => {
  it('exits 0 on --help for the program and every command', async () => {
    const cmds = [[], ['ingest'], ['check'], ['canonicalize'], ['stats'], ['verify'], ['runs'], ['hosts'], ['url']];
    const results = await Promise.all(cmds.map((cmd) => drum([...cmd, '--help'])));
    results.forEach((r, i) => {
      assert.equal(r.status, 0, `${cmds[i]!.join(' ')} --help: ${r.stderr}`);
      assert.match(r.stdout, /Usage: drum/);
    });
  });

  it('exits 2 on a bad option value and on an unknown option', async () => {
    assert.equal((await drum(['ingest', '--memory', 'lots', 'x.txt'])).status, 2);
    assert.equal((await drum(['stats', '--frobnicate'])).status, 2);
  });
});

describe('drum binary with the engine', { skip: noEngine && 'engine not compiled' }, () => {
  it('writes the first occurrence of each URL in arrival order, then on a second run only the URLs new to the store', async () => {
    const dir = tempDir();
    const first = await drum(['ingest', ...FAST, '--out', 'o1', write(dir, 'a.txt', A)], { cwd: dir });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /new URLs\s+3 \(/);
    assert.deepEqual(uniques(join(dir, 'o1')), ['http://a.example/1', 'http://b.example/2', 'http://c.example/3']);
    assert.ok(existsSync(join(dir, 'o1', 'report.json')) && existsSync(join(dir, 'o1', 'rejects.tsv')));
    const r = await drum(['ingest', ...FAST, '--quiet', '--out', 'o2', write(dir, 'b.txt', B)], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '', '--quiet prints nothing');
    assert.deepEqual(uniques(join(dir, 'o2')), ['http://d.example/4', 'http://e.example/5']);
    const check = await drum(['check', '--quiet', write(dir, 'c.txt', [...B, 'http://f.example/6'])], { cwd: dir });
    assert.equal(check.stdout, 'http://f.example/6\n');
  });

  it('announces a new default store on stderr once, prints a short summary, and the internals with --verbose', async () => {
    const dir = tempDir();
    const first = await drum(['ingest', ...FAST, write(dir, 'a.txt', A)], { cwd: dir });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /^drum: created a new store at \.\/drum-state$/m);
    assert.match(first.stdout, /inputs\s+\S*a\.txt \(/);
    assert.match(first.stdout, /rejects in\s+\S+rejects\.tsv\n/);
    assert.match(first.stdout, /report in\s+\S+report\.json\n/);
    assert.ok(!first.stdout.includes('seeks per URL'), 'internals only with --verbose');
    const second = await drum(['ingest', ...FAST, '--verbose', write(dir, 'b.txt', B)], { cwd: dir });
    assert.equal(second.status, 0, second.stderr);
    assert.ok(!second.stderr.includes('created a new store'), 'an existing store is not announced');
    assert.match(second.stdout, /seeks per URL/);
    assert.match(second.stdout, /answered in RAM/);
    const named = await drum(['ingest', ...FAST, '--state', 'elsewhere', write(dir, 'c.txt', A)], { cwd: dir });
    assert.ok(!named.stderr.includes('created a new store'), 'a store named with --state was asked for');
  });

  it('shows in stats the disk the state directory really uses, caches included', async () => {
    const dir = tempDir();
    assert.equal((await drum(['ingest', ...FAST, '--quiet', write(dir, 'a.txt', A)], { cwd: dir })).status, 0);
    const text = await drum(['stats'], { cwd: dir });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /disk used: \S+ \S+\n/);
    assert.match(text.stdout, /caches\s+\S+ \S+ \(\d/);
    const s = JSON.parse((await drum(['stats', '--json'], { cwd: dir })).stdout) as { disk: Record<string, number> };
    const parts = ['store', 'bloom', 'urls', 'hosts', 'caches', 'catalog', 'runs', 'work', 'other'].map((k) => s.disk[k]!);
    assert.equal(parts.reduce((a, b) => a + b, 0), s.disk['totalBytes']);
    assert.ok(s.disk['store']! > 0 && s.disk['runs']! > 0 && s.disk['catalog']! > 0 && s.disk['urls']! > 0 && s.disk['hosts']! > 0);
  });

  it('prints one JSON report that adds up, skips an already ingested input, and records runs and hosts', async () => {
    const dir = tempDir();
    const input = write(dir, 'a.txt', [...A, 'mailto:someone@example.org', 'http://']);
    const r = await drum(['ingest', ...FAST, '--json', input], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout) as RunReport;
    assert.equal(rep.linksRead, 7);
    assert.equal(rep.linksRead, rep.uniqueUrls + rep.duplicateUrls + rep.rejectedLines);
    assert.deepEqual([rep.uniqueUrls, rep.duplicateUrls, rep.rejectedLines], [3, 2, 2]);
    assert.equal(rep.rejectsByReason['unsupported-scheme'], 1);
    const again = await drum(['ingest', ...FAST, '--json', input], { cwd: dir });
    const rep2 = JSON.parse(again.stdout) as RunReport;
    assert.equal(rep2.uniqueUrls, 0);
    assert.ok(rep2.inputs[0]!.skipped, 'already ingested input is skipped');
    const runs = JSON.parse((await drum(['runs', '--json'], { cwd: dir })).stdout) as { runId: string; status: string }[];
    assert.equal(runs.find((x) => x.runId === rep.runId)?.status, 'complete');
    const hosts = JSON.parse((await drum(['hosts', '--json'], { cwd: dir })).stdout) as { host: string; uniqueUrls: number }[];
    assert.equal(hosts.reduce((s, h) => s + h.uniqueUrls, 0), 3);
  });

  it('prints only the JSON with --json and --quiet: one JSON value on stdout, nothing on stderr', async () => {
    const dir = tempDir();
    const input = write(dir, 'a.txt', A);
    const warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 20, seed: 1, out: warc });
    // A new store in the default state directory, whose announcement --quiet also keeps off stderr.
    for (const args of [['ingest', ...FAST, input], ['forget', '--no-fsync', input], ['verify'], ['content', '--no-fsync', warc], ['content', '--verify']]) {
      const r = await drum([...args, '--json', '--quiet'], { cwd: dir });
      assert.equal(r.status, 0, `${args[0]}: ${r.stderr}`);
      assert.equal(r.stderr, '', args.join(' '));
      assert.equal(r.stdout.split('\n').length, 2, `${args.join(' ')}: one line`);
      assert.equal(typeof JSON.parse(r.stdout), 'object', args.join(' '));
    }
  });

  it('fails a second writer with the DRUM_LOCKED status', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const { Drum } = (await import(pathToFileURL(engineFile).href)) as {
      Drum: { open(d: string, o?: object): Promise<{ close(): Promise<void> }> };
    };
    const holder = await Drum.open(state, { workers: 0, fsync: false });
    try {
      const r = await drum(['ingest', ...FAST, '--state', state, write(dir, 'a.txt', A)], { cwd: dir });
      assert.equal(r.status, EXIT_STATUS.DRUM_LOCKED, r.stderr);
      assert.match(r.stderr, /^drum: DRUM_LOCKED: /m);
    } finally {
      await holder.close();
    }
  });

  it('refuses --host-bits, --buckets or --no-values other than the store was created with, changing nothing', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const a = write(dir, 'a.txt', A);
    assert.equal((await drum(['ingest', ...FAST, '--quiet', '--state', state, '--buckets', '16', a], { cwd: dir })).status, 0);
    const before = stateFiles(state);
    const b = write(dir, 'b.txt', B);
    for (const flags of [['--host-bits', '16'], ['--buckets', '64'], ['--no-values'], ['--host-bits', '20', '--force-policy']]) {
      const r = await drum(['ingest', ...FAST, '--state', state, ...flags, b], { cwd: dir });
      assert.equal(r.status, EXIT_STATUS.DRUM_POLICY_MISMATCH, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^drum: DRUM_POLICY_MISMATCH: /m);
    }
    assert.deepEqual(stateFiles(state), before, 'nothing written');
    // The store's own values, given or not, are fine.
    const same = await drum(['ingest', ...FAST, '--quiet', '--state', state, '--buckets', '16', '--host-bits', '24', b], { cwd: dir });
    assert.equal(same.status, 0, same.stderr);
  });

  it('takes --buckets, --host-bits and --no-values only where a store is created: the other store commands refuse them as usage errors, changing nothing', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const a = write(dir, 'a.txt', A);
    assert.equal((await drum(['ingest', ...FAST, '--quiet', '--state', state, a], { cwd: dir })).status, 0);
    const before = stateFiles(state);
    const flags = [['--host-bits', '16'], ['--buckets', '16'], ['--no-values']];
    const commands = [['check', a], ['resolve', a], ['forget', a], ['compact'], ['upgrade'], ['repair', '--bloom'], ['stats'], ['verify'], ['url', '0']];
    for (const [i, [cmd, ...rest]] of commands.entries()) {
      const f = flags[i % flags.length]!;
      const r = await drum([cmd!, '--state', state, ...f, ...rest], { cwd: dir });
      assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, `${cmd} ${f.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /unknown option/);
    }
    assert.deepEqual(stateFiles(state), before, 'nothing written');
  });

  it('prints !reject<TAB><reason> for unusable lines in canonicalize', async () => {
    const r = await drum(['canonicalize'], { input: 'HTTP://Example.COM:80/a\nmailto:x@example.org\nhttp://\n' });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[0], 'http://example.com/a');
    assert.equal(lines[1], '!reject\tunsupported-scheme');
    assert.match(lines[2]!, /^!reject\t[a-z-]+$/);
  });

  it('verifies a sound store with exit 0, and catches a corrupted key file that ingest then refuses', async () => {
    const dir = tempDir();
    assert.equal((await drum(['ingest', ...FAST, '--quiet', write(dir, 'a.txt', A)], { cwd: dir })).status, 0);
    const ok = await drum(['verify'], { cwd: dir });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^sound/);
    const store = join(dir, 'drum-state', 'store');
    const victim = join(store, readdirSync(store).sort()[0]!);
    const buf = readFileSync(victim);
    buf[buf.length - 1]! ^= 0xff;
    writeFileSync(victim, buf);
    const bad = await drum(['verify'], { cwd: dir });
    assert.equal(bad.status, EXIT_STATUS.DRUM_CORRUPT_FILE, bad.stderr);
    assert.ok(bad.stderr.includes(victim), bad.stderr);
    const catalogNow = async () => (await drum(['runs', '--json'], { cwd: dir })).stdout;
    const before = stateFiles(join(dir, 'drum-state'));
    const catalogBefore = await catalogNow();
    const refused = await drum(['ingest', ...FAST, write(dir, 'b.txt', B)], { cwd: dir });
    assert.equal(refused.status, EXIT_STATUS.DRUM_CORRUPT_FILE, refused.stderr);
    assert.deepEqual(stateFiles(join(dir, 'drum-state')), before);
    assert.deepEqual(await catalogNow(), catalogBefore);
  });

  it('ingests the Heritrix outlink stream: the report adds up and the outputs hold uniqueUrls distinct URLs', { skip: !existsSync(heritrix) && 'dataset absent' }, async () => {
    const dir = tempDir();
    const r = await drum(['ingest', ...FAST, '--json', '--format', 'tsv', '--out', 'out', heritrix], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout) as RunReport;
    assert.equal(rep.linksRead, rep.uniqueUrls + rep.duplicateUrls + rep.rejectedLines);
    assert.ok(rep.linksRead > 38000, `${rep.linksRead} links`);
    const urls = uniques(join(dir, 'out'));
    assert.equal(urls.length, rep.uniqueUrls);
    assert.equal(new Set(urls).size, urls.length);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')).uniqueUrls, rep.uniqueUrls);
  });
});
