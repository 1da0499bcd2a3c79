// Tests of the CLI's option mapping (src/cli/options.ts): sizes, counts,
// enums and policy flags become DrumOptions / IngestRequest fields, options
// not given stay unset, and every bad value is DRUM_BAD_OPTION.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  canonicalFrom,
  drumOptionsFrom,
  ingestRequestFrom,
  inputsFrom,
  limitFrom,
  parseCount,
  readOptionsFrom,
  stateDirFrom,
  topFrom,
} from '../../src/cli/options.js';
import { isDrumError, EXIT_STATUS } from '../../src/errors.js';
import { minimumMemoryBytes } from '../../src/options.js';
import { tempDir } from '../helpers/tmp.js';

const badOption = (e: unknown) => isDrumError(e, 'DRUM_BAD_OPTION');

describe('state directory', () => {
  it('prefers --state, then $DRUM_STATE, then ./drum-state, resolved against the cwd', () => {
    assert.equal(stateDirFrom({ state: 's' }, { DRUM_STATE: '/env' }, '/cwd'), '/cwd/s');
    assert.equal(stateDirFrom({}, { DRUM_STATE: '/env' }, '/cwd'), '/env');
    assert.equal(stateDirFrom({}, { DRUM_STATE: '' }, '/cwd'), '/cwd/drum-state');
    assert.equal(stateDirFrom({}, {}, '/cwd'), '/cwd/drum-state');
  });

  it('rejects an empty --state', () => {
    assert.throws(() => stateDirFrom({ state: ' ' }, {}, '/cwd'), badOption);
  });
});

describe('store options', () => {
  it('leaves every option unset when none is given, so the engine and the store decide', () => {
    assert.deepEqual(drumOptionsFrom({}), {});
    assert.deepEqual(drumOptionsFrom({}, { readOnly: true }), { readOnly: true });
  });

  it('maps sizes, counts, enums and flags', () => {
    const o = drumOptionsFrom({
      memory: '256MiB',
      buckets: '128',
      cacheEntries: '2^18',
      recentEntries: '1_000_000',
      bloom: 'gate',
      bloomBits: '12',
      workers: '0',
      mergeEvery: '20_000',
      forcePolicy: true,
      fsync: false,
      stripWww: true,
    });
    assert.deepEqual(o, {
      memoryBytes: 256 * 1024 * 1024,
      buckets: 128,
      cacheEntries: 262144,
      recentEntries: 1_000_000,
      bloom: 'gate',
      bloomBitsPerKey: 12,
      workers: 0,
      mergeEvery: 20_000,
      forcePolicy: true,
      fsync: false,
      canonical: { stripWww: true },
    });
  });

  for (const [name, raw] of [
    ['a memory size without a number', { memory: 'lots' }],
    ['a merge interval of zero', { mergeEvery: '0' }],
    ['a memory budget under 1 MiB', { memory: '1000' }],
    ['a bucket count that is not a power of two', { buckets: '48' }],
    ['more than 4096 buckets', { buckets: '8192' }],
    ['a negative cache size', { cacheEntries: '-1' }],
    ['a fractional recent-table size', { recentEntries: '1.5' }],
    ['an unknown bloom mode', { bloom: 'maybe' }],
    ['zero bloom bits', { bloomBits: '0' }],
    ['a worker count that is not a number', { workers: 'many' }],
    ['tuning that is not JSON', { tuning: 'bufferEntries=4' }],
    ['tuning that is not an object', { tuning: '[1024]' }],
    ['an unknown tuning limit', { tuning: '{"sortArea":1024}' }],
    ['a tuning limit of zero', { tuning: '{"sortEntries":0}' }],
  ] as const) {
    it(`rejects ${name} as DRUM_BAD_OPTION`, () => {
      assert.throws(() => drumOptionsFrom(raw), badOption);
    });
  }

  it('names the smallest budget these options need when --memory is under 1 MiB', () => {
    const min = minimumMemoryBytes({ workers: 0 }) / 2 ** 20;
    assert.throws(() => drumOptionsFrom({ memory: '1k', workers: '0' }), (e: Error & { code?: string }) =>
      e.code === 'DRUM_BAD_OPTION' && e.message.includes(`${min} MiB`));
  });

  it('reads --tuning as the engine\'s internal limits', () => {
    assert.deepEqual(drumOptionsFrom({ tuning: '{"bufferEntries":2048,"sortEntries":32768}' }).tuning, { bufferEntries: 2048, sortEntries: 32768 });
    assert.equal(drumOptionsFrom({}).tuning, undefined);
  });

  it('gives DRUM_BAD_OPTION the usage exit status 2', () => {
    assert.equal(EXIT_STATUS.DRUM_BAD_OPTION, 2);
  });
});

describe('counts', () => {
  it('accepts digits, underscores and powers of two', () => {
    assert.equal(parseCount('--n', '42'), 42);
    assert.equal(parseCount('--n', '1_024'), 1024);
    assert.equal(parseCount('--n', '2^20'), 1 << 20);
  });

  it('rejects signs, exponents, hex and out-of-range values', () => {
    for (const t of ['+1', '1e6', '0x10', '', ' ', '2^']) assert.throws(() => parseCount('--n', t), badOption, t);
    assert.throws(() => parseCount('--n', '5', 6, 10), badOption);
    assert.throws(() => parseCount('--n', '99999999999999999999'), badOption);
  });

  it('defaults --top and --limit to 20 and refuses 0', () => {
    assert.equal(topFrom({}), 20);
    assert.equal(limitFrom({ limit: '3' }), 3);
    assert.throws(() => topFrom({ top: '0' }), badOption);
  });
});

describe('canonical policy and read options', () => {
  it('returns no policy when no policy option is given', () => {
    assert.equal(canonicalFrom({}), undefined);
  });

  it('maps the mode, each optional rule and the line limit', () => {
    assert.deepEqual(canonicalFrom({ canonical: 'default', foldHttps: true, stripIndex: true, lowercasePath: true, maxLineBytes: '4096' }), {
      mode: 'default',
      foldHttps: true,
      stripIndex: true,
      lowercasePath: true,
      maxLineBytes: 4096,
    });
    assert.deepEqual(canonicalFrom({ canonical: 'none' }), { mode: 'none' });
  });

  it('refuses an unknown mode and optional rules combined with raw mode', () => {
    assert.throws(() => canonicalFrom({ canonical: 'strict' }), badOption);
    assert.throws(() => canonicalFrom({ canonical: 'none', stripWww: true }), badOption);
  });

  it('maps format and WARC link options and refuses unknown values', () => {
    assert.deepEqual(readOptionsFrom({ format: 'tsv', links: 'all', warcLinks: 'both' }), { format: 'tsv', links: 'all', warcLinks: 'both' });
    assert.deepEqual(readOptionsFrom({}), {});
    assert.throws(() => readOptionsFrom({ format: 'csv' }), badOption);
    assert.throws(() => readOptionsFrom({ links: 'some' }), badOption);
    assert.throws(() => readOptionsFrom({ warcLinks: 'xml' }), badOption);
  });
});

describe('ingest request', () => {
  it('resolves inputs and --out against the cwd, keeps - for stdin, and passes --force', () => {
    const req = ingestRequestFrom({ out: 'o', force: true, format: 'lines' }, ['a.txt', '-', '/abs/b.gz'], '/w');
    assert.deepEqual(req, { inputs: ['/w/a.txt', '-', '/abs/b.gz'], format: 'lines', outDir: '/w/o', force: true });
  });

  it('refuses no inputs and stdin twice', () => {
    assert.throws(() => ingestRequestFrom({}, [], '/w'), badOption);
    assert.throws(() => ingestRequestFrom({}, ['-', '-'], '/w'), badOption);
  });

  it('reads stdin when check or canonicalize get no inputs', () => {
    assert.deepEqual(inputsFrom([], '/w'), ['-']);
    assert.deepEqual(inputsFrom(['x'], '/w'), [resolve('/w', 'x')]);
  });
});

describe('profile, rules and SURT options', () => {
  it('maps --profile, --surt and the text of a --rules file into the canonical policy options', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'r.txt'), 'global strip-param ref\n');
    assert.deepEqual(canonicalFrom({ profile: 'nutch', surt: true, rules: 'r.txt' }, dir), {
      profile: 'nutch', surt: true, rules: 'global strip-param ref\n',
    });
  });

  it('rejects an unknown profile, a missing rules file and drum-only flags on another profile', () => {
    assert.throws(() => canonicalFrom({ profile: 'wget' }), badOption);
    assert.throws(() => canonicalFrom({ rules: '/nonexistent/rules.txt' }), badOption);
    assert.throws(() => canonicalFrom({ profile: 'w3lib', stripWww: true }), badOption);
  });
});
