// Hostile-input fuzzing shared by hostile-input.test.ts (beside it; a short
// seeded run) and scripts/torture.ts (a long one): a fast-check arbitrary of
// byte strings built from URL pieces and trouble (NULs, invalid UTF-8, C0
// controls, CR, huge lines and hosts, `[`, `%`, `\`, BOMs, tabs), and one
// check of a sample through the whole engine: ingest of a temp file, judged
// against an independent model of the `lines` reader (physical lines, BOM,
// CRLF, blank and `#` lines, too-long) and `drum canonicalize`'s per-line
// answers. Returns a list of problems (empty = sound); throws nothing itself.

import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Drum, canonicalizeLines } from '../../../src/engine/drum.js';
import { NOT_A_LINK } from '../../../src/engine/jobs/read/canonicalize-lines.js';
import { isDrumError } from '../../../src/errors.js';
import { unescapeExcerpt } from '../../../src/output/rejects.js';

const MAX_LINE = 2048;

const scheme = fc.constantFrom('http://', 'https://', 'HTTP://', 'http:', '//', 'ftp://', 'mailto:', 'javascript:', 'http:\\\\');
const host = fc.constantFrom(
  'a.example', 'Ex.COM', 'b.example:8080', 'xn--bcher-kva.example', 'bücher.example', '127.0.0.1', '[::1]', '[', ']', '[v1.x]',
  '999.1.1.1', 'a..b', '-a-.example', 'user:pw@c.example', 'd.example.', '%41.example', 'e%zz.example', 'f\u0000.example',
  `${'g'.repeat(63)}.example`, `${'h'.repeat(64)}.example`, `${'i'.repeat(60)}.`.repeat(5) + 'example', 'j.example:99999', 'k.example:x',
);
const cleanPiece = fc.constantFrom('/', '/a', '/b/c', '/index.html', '?q=1', '?x=y&z=', '#top', '/%41b', '/~u/', '/a%20b');
const dirtyPiece = fc.constantFrom(
  '/', '/p', '/./', '/../', '?', '?a=1&b', '?utm_source=x', '#', '#f', ':', '@', '%', '%2', '%zz', '%00', '%41', '%E2%82', '\\', '\\\\',
  ' ', '\t', '~', '&', ';jsessionid=1', '/é', '/\u2028', '/\uD800', '/\u0001', '/\u007f', `/${'q'.repeat(300)}`, `/${'r'.repeat(2100)}`,
);
const pathPiece = fc.oneof({ weight: 2, arbitrary: cleanPiece }, { weight: 1, arbitrary: dirtyPiece });
const junk = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u00ff', '#comment', '   ', '\t', '\uFEFF', '[', '%', '\\', 'e'.repeat(5000)),
);
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(scheme, host, fc.array(pathPiece, { maxLength: 6 })).map(([s, h, p]) => s + h + p.join('')) },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('http://', 'https://'), fc.constantFrom('a.example', 'B.example', 'c.example:8080', 'bücher.example'), fc.array(cleanPiece, { maxLength: 4 })).map(([s, h, p]) => s + h + p.join('')) },
  { weight: 2, arbitrary: fc.array(fc.oneof(scheme, host, pathPiece, junk), { minLength: 1, maxLength: 8 }).map((a) => a.join('')) },
  { weight: 1, arbitrary: junk },
);
const eol = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r', '\n\n', '\n#c\n', '\n  \t\n');

/** Raw bytes: lines of URL pieces and trouble, mostly latin1-encoded (so invalid UTF-8 survives), sometimes UTF-8. */
export const hostileBytes: fc.Arbitrary<Buffer> = fc
  .tuple(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 40 }), fc.boolean(), fc.boolean())
  .map(([ls, utf8, bom]) => Buffer.from((bom ? '\uFEFF' : '') + ls.map(([l, e]) => l + e).join(''), utf8 ? 'utf8' : 'latin1'));

/** The `lines` reader's view of a file: 1-based numbers of lines that are links or too-long rejects. */
export function linkLines(b: Buffer): number[] {
  let s = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  const out: number[] = [];
  let line = 0;
  while (s < b.length) {
    let nl = b.indexOf(0x0a, s);
    if (nl < 0) nl = b.length;
    line++;
    let e = nl;
    if (e > s && b[e - 1] === 0x0d) e--;
    if (e - s > MAX_LINE) out.push(line);
    else {
      let a = s;
      while (a < e && (b[a] === 0x20 || b[a] === 0x09)) a++;
      if (a < e && b[a] !== 0x23) out.push(line);
    }
    s = nl + 1;
  }
  return out;
}

export interface HostileContext {
  dir: string;
  drum: Drum;
  /** Canonical URLs already in the store (the model's seen-set). */
  seen: Set<string>;
  n: number;
}

export async function openHostile(dir: string): Promise<HostileContext> {
  const drum = await Drum.open(join(dir, 'state'), { workers: 0, fsync: false, chunkBytes: 4096, tuning: { maxBucketEntries: 50 } });
  return { dir, drum, seen: new Set(), n: 0 };
}

function readUniques(out: string): string[] {
  const files = fs.readdirSync(out).filter((f) => /^unique-\d+\.txt$/.test(f)).sort();
  return files.flatMap((f) => fs.readFileSync(join(out, f), 'latin1').split('\n').slice(0, -1));
}

/** Ingests `bytes` as a `lines` file and returns every disagreement with the model. */
export async function checkHostile(ctx: HostileContext, bytes: Buffer): Promise<string[]> {
  const id = ctx.n++;
  const input = join(ctx.dir, `in-${id}.txt`);
  const out = join(ctx.dir, `out-${id}`);
  fs.writeFileSync(input, bytes);
  const problems: string[] = [];
  // The oracle: drum canonicalize's answer for each link line, in order (it also answers blank and comment lines: not links).
  const answers: string[] = [];
  await canonicalizeLines([input], { canonical: {}, format: 'lines' }, (l) => {
    if (l !== NOT_A_LINK) answers.push(l);
  });
  const lines = linkLines(bytes);
  if (answers.length !== lines.length) problems.push(`canonicalize gave ${answers.length} answers for ${lines.length} link lines`);
  const wantRejects: string[] = [];
  const wantNew: string[] = [];
  const seenNow = new Set<string>();
  answers.forEach((a, i) => {
    if (a.startsWith('!reject\t')) wantRejects.push(`${lines[i]}\t${a.slice(8)}`);
    else if (!ctx.seen.has(a) && !seenNow.has(a)) {
      seenNow.add(a);
      wantNew.push(a);
    }
  });
  let rep;
  try {
    rep = await ctx.drum.ingest({ inputs: [input], outDir: out, format: 'lines', force: true });
  } catch (e) {
    problems.push(`ingest threw ${isDrumError(e) ? e.code : 'non-DrumError'}: ${(e as Error)?.stack ?? String(e)}`);
    return problems;
  }
  for (const u of seenNow) ctx.seen.add(u);
  if (rep.linksRead !== rep.uniqueUrls + rep.duplicateUrls + rep.rejectedLines) problems.push(`report does not add up: ${JSON.stringify([rep.linksRead, rep.uniqueUrls, rep.duplicateUrls, rep.rejectedLines])}`);
  if (rep.linksRead !== lines.length) problems.push(`linksRead ${rep.linksRead}, model says ${lines.length} link lines`);
  const got = readUniques(out);
  if (got.length !== rep.uniqueUrls) problems.push(`unique files hold ${got.length} URLs, report says ${rep.uniqueUrls}`);
  if (JSON.stringify(got) !== JSON.stringify(wantNew)) problems.push(`new URLs differ: got ${JSON.stringify(got).slice(0, 300)} want ${JSON.stringify(wantNew).slice(0, 300)}`);
  const rows = fs.readFileSync(join(out, 'rejects.tsv'), 'latin1').split('\n').slice(1, -1);
  if (rows.length !== rep.rejectedLines) problems.push(`rejects.tsv has ${rows.length} rows, report says ${rep.rejectedLines}`);
  const gotRejects = rows.map((r) => r.split('\t')).map((c) => `${c[1]}\t${c[2]}`);
  if (JSON.stringify(gotRejects) !== JSON.stringify(wantRejects)) problems.push(`rejects differ: got ${JSON.stringify(gotRejects).slice(0, 300)} want ${JSON.stringify(wantRejects).slice(0, 300)}`);
  for (const r of rows) {
    const c = r.split('\t');
    if (c.length !== 4) problems.push(`rejects row is not 4 columns: ${JSON.stringify(r)}`);
    else {
      // The excerpt is the first <= 200 bytes of that very line: of its URL field (blanks trimmed), or raw when too long.
      const raw = physicalLine(bytes, Number(c[1]));
      let a = 0;
      let z = raw.length;
      while (a < z && (raw[a] === 0x20 || raw[a] === 0x09)) a++;
      while (z > a && (raw[z - 1] === 0x20 || raw[z - 1] === 0x09)) z--;
      const ex = unescapeExcerpt(c[3]!);
      const head = (b: Buffer): Buffer => b.subarray(0, Math.min(200, b.length));
      if (!(head(raw).equals(ex) || head(raw.subarray(a, z)).equals(ex))) problems.push(`excerpt of line ${c[1]} is not its first bytes: ${c[3]}`);
    }
  }
  fs.rmSync(input);
  fs.rmSync(out, { recursive: true, force: true });
  return problems;
}

/** Bytes of physical line `n` (1-based), without LF or the CR before it, BOM dropped on line 1. */
function physicalLine(b: Buffer, n: number): Buffer {
  let s = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  for (let i = 1; i < n; i++) s = b.indexOf(0x0a, s) + 1;
  let e = b.indexOf(0x0a, s);
  if (e < 0) e = b.length;
  if (e > s && b[e - 1] === 0x0d) e--;
  return b.subarray(s, e);
}

/**
 * The same bytes through Drum.checkUpdate on a fresh store must yield exactly
 * the URLs the model calls new (the in-memory path: LineSplitter + Feeder).
 */
export async function checkUpdateAgrees(dir: string, bytes: Buffer, pieces: number): Promise<string[]> {
  const answers: string[] = [];
  const input = join(dir, `cu-${process.hrtime.bigint()}.txt`);
  fs.writeFileSync(input, bytes);
  await canonicalizeLines([input], { canonical: {}, format: 'lines' }, (l) => {
    if (l !== NOT_A_LINK) answers.push(l);
  });
  fs.rmSync(input);
  const want: string[] = [];
  const seen = new Set<string>();
  for (const a of answers) if (!a.startsWith('!reject\t') && !seen.has(a)) (seen.add(a), want.push(a));
  const state = join(dir, `cu-state-${process.hrtime.bigint()}`);
  const d = await Drum.open(state, { workers: 0, fsync: false, chunkBytes: 4096, tuning: { maxBucketEntries: 50 } });
  const got: string[] = [];
  try {
    // Split the bytes into pieces at arbitrary points: the splitter must not care.
    const step = Math.max(1, Math.ceil(bytes.length / pieces));
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += step) parts.push(bytes.subarray(i, i + step));
    for await (const u of d.checkUpdate(parts)) got.push(u);
  } catch (e) {
    return [`checkUpdate threw ${isDrumError(e) ? e.code : 'non-DrumError'}: ${(e as Error)?.stack ?? String(e)}`];
  } finally {
    await d.close();
    fs.rmSync(state, { recursive: true, force: true });
  }
  // checkUpdate decodes with TextDecoder (UTF-8); the model's answers are latin1 byte strings.
  const gotBytes = got.map((u) => Buffer.from(u, 'utf8').toString('latin1'));
  return JSON.stringify(gotBytes) === JSON.stringify(want) ? [] : [`checkUpdate yielded ${JSON.stringify(gotBytes).slice(0, 300)}, model ${JSON.stringify(want).slice(0, 300)}`];
}
