// Derives an `ia` vector suite from the Python `surt` package's tests
// (internetarchive/surt, tests/test_surt.py), whose AGPL-3.0 licence keeps
// drum from copying them into the repository: point it at a checkout, and
// it writes the suite JSON for scripts/canon-agreement.ts (--dir). Takes the
// `surt.surt("url") == 'key'` assertions with the default options only (no
// keyword arguments). Reads that one file; writes only --out.
// Usage: node dist/scripts/vectors-from-surt.js PATH/tests/test_surt.py
//   [--commit SHA] [--out DIR]   (then: canon-agreement.js --dir DIR)

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { VectorCase, VectorSuite } from './canon-agreement.js';

const PY_STR = String.raw`([bu]?)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`;
const ASSERT_RE = new RegExp(String.raw`surt\.surt\(\s*${PY_STR}\s*\)\s*==\s*${PY_STR}`, 'g');

/** The value of a Python string literal (quotes included); bytes literals read as UTF-8. */
export function pyString(prefix: string, lit: string): string {
  const body = lit.slice(1, -1);
  let out = '';
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i]!;
    if (n === 'x') {
      const v = parseInt(body.slice(i + 1, i + 3), 16);
      if (prefix === 'b') bytes.push(v);
      out += String.fromCharCode(v);
      i += 2;
    } else if (n === 'u') {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else {
      out += ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[n] ?? n;
    }
  }
  return prefix === 'b' ? Buffer.from(out, 'latin1').toString('utf8') : out;
}

/** The cases of a test_surt.py text. */
export function surtCases(text: string): VectorCase[] {
  const joined = text.replace(/\\\n\s*/g, ' '); // backslash line continuations
  const cases: VectorCase[] = [];
  for (const m of joined.matchAll(ASSERT_RE)) {
    cases.push({ in: pyString(m[1]!, m[2]!), out: pyString(m[3]!, m[4]!), form: 'surt' });
  }
  return cases;
}

function main(argv: string[]): void {
  const file = argv[0];
  if (file === undefined || file.startsWith('--')) {
    process.stderr.write('usage: node dist/scripts/vectors-from-surt.js PATH/tests/test_surt.py [--commit SHA] [--out DIR]\n');
    process.exit(2);
  }
  const opt = (k: string): string | undefined => {
    const i = argv.indexOf(k);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const suite: VectorSuite = {
    suite: 'ia-python-surt',
    profile: 'ia',
    source: { repository: 'internetarchive/surt', commit: opt('--commit') ?? 'unknown', path: 'tests/test_surt.py', licence: 'AGPL-3.0 (derived locally, not copied into drum)' },
    note: 'surt.surt(url) == key with default options, derived by scripts/vectors-from-surt.ts',
    cases: surtCases(readFileSync(file, 'utf8')),
  };
  const out = opt('--out');
  const json = JSON.stringify(suite, null, 1) + '\n';
  if (out === undefined) {
    process.stdout.write(json);
  } else {
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'ia-python-surt.json'), json);
    process.stderr.write(`vectors-from-surt: ${suite.cases.length} cases -> ${join(out, 'ia-python-surt.json')}\n`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
