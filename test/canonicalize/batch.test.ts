// canonicalizeBatch: layout of the CanonicalBatch, TSV bases, raw mode,
// scratch reuse, hostile input (each rejected with a reason, the good URLs
// around it kept) and the GSA host lists (no crash, totals add up).

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatchScratch, canonicalizeBatch, resolvePolicy, type CanonicalBatch } from '../../src/canonicalize/index.js';
import { REJECT_REASONS } from '../../src/input/types.js';
import { chunkOf, type Line } from './chunk.js';

const GSA = path.resolve(process.cwd(), '../shared/datasets/gsa-federal-website-index');
const GSA_FILES = ['dap_top_100000_domains_30_days.csv', 'hyperlink_domains.csv'];

function urls(b: CanonicalBatch): string[] {
  const out: string[] = [];
  for (let i = 0; i < b.count; i++) out.push(b.bytes.toString('latin1', i === 0 ? 0 : b.ends[i - 1], b.ends[i]));
  return out;
}

function hosts(b: CanonicalBatch): string[] {
  return [...b.hostStarts].map((s, i) => b.bytes.toString('latin1', s, b.hostEnds[i]));
}

describe('canonicalizeBatch', () => {
  it('lays canonical URLs back to back with their host ranges and line numbers', () => {
    const b = canonicalizeBatch(chunkOf(['HTTP://A.com/x', 'mailto:x@y', 'https://b.org:8443/?b=1&a=2']), resolvePolicy());
    assert.deepEqual(urls(b), ['http://a.com/x', 'https://b.org:8443/?a=2&b=1']);
    assert.deepEqual(hosts(b), ['a.com', 'b.org:8443']);
    assert.deepEqual([...b.lines], [1, 3]);
    assert.deepEqual(b.rejects.map((r) => [r.line, r.reason, r.excerpt.toString()]), [[2, 'unsupported-scheme', 'mailto:x@y']]);
  });

  it('resolves relative TSV targets against the source URL and needs no base for absolute ones', () => {
    const b = canonicalizeBatch(chunkOf([
      ['http://a.com/dir/page.html', 'other.html#x'],
      ['http://a.com/dir/page.html', '../up?utm_source=x'],
      ['not a url', 'http://c.com'],
      ['not a url', 'relative'],
      'relative',
    ]), resolvePolicy());
    assert.deepEqual(urls(b), ['http://a.com/dir/other.html', 'http://a.com/up', 'http://c.com/']);
    assert.deepEqual(b.rejects.map((r) => [r.line, r.reason]), [[4, 'relative-without-base'], [5, 'relative-without-base']]);
  });

  it('keeps the exact URL bytes in raw mode and rejects only empty fields', () => {
    const raw = Buffer.from([0x68, 0xff, 0x00, 0x20]);
    const b = canonicalizeBatch(chunkOf(['HTTP://A.com/x#f', 'no-scheme', '', raw, 'https://h:1?q']), resolvePolicy({ mode: 'none' }));
    assert.deepEqual(urls(b), ['HTTP://A.com/x#f', 'no-scheme', raw.toString('latin1'), 'https://h:1?q']);
    assert.deepEqual(hosts(b), ['A.com', '', '', 'h:1']);
    assert.deepEqual(b.rejects.map((r) => [r.line, r.reason]), [[3, 'empty']]);
  });

  it('reuses a scratch across calls and grows it for long canonical forms', () => {
    const scratch = new BatchScratch();
    const p = resolvePolicy();
    const long = 'http://a.com/' + '|'.repeat(5000);
    const b1 = canonicalizeBatch(chunkOf(['http://a.com/1', long]), p, scratch);
    assert.equal(urls(b1)[1], 'http://a.com/' + '%7C'.repeat(5000));
    const b2 = canonicalizeBatch(chunkOf(['http://b.com/2']), p, scratch);
    assert.deepEqual(urls(b2), ['http://b.com/2']);
    assert.equal(b2.bytes.buffer, scratch.bytes.buffer);
  });

  it('passes the chunk position through and keeps excerpts to 200 bytes', () => {
    const chunk = chunkOf(['ftp://' + 'x'.repeat(500)], 3);
    chunk.endOffset = 999;
    chunk.endLine = 7;
    const b = canonicalizeBatch(chunk, resolvePolicy());
    assert.deepEqual([b.input, b.endOffset, b.endLine, b.count], [3, 999, 7, 0]);
    assert.equal(b.rejects[0]!.excerpt.length, 200);
    assert.equal(b.rejects[0]!.input, 3);
  });
});

describe('hostile input', () => {
  const hostile: [Line, string][] = [
    [Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x80]), 'invalid-utf8'],
    [Buffer.from('http://a.com/\x00x'), 'control-char'],
    [Buffer.from([0x68, 0x74, 0x74, 0x70, 0x3a, 0x2f, 0x2f, 0x61, 0x2f, 0xc3]), 'invalid-utf8'],
    ['http://a b.com/', 'invalid-host'],
    ['http://', 'invalid-host'],
    ['http://[::1', 'invalid-host'],
    ['http://a.com:99999/', 'invalid-port'],
    ['http://a.com:8x/', 'invalid-port'],
    ['http://a..b/', 'invalid-host'],
    ['http://' + 'a'.repeat(64) + '.com/', 'invalid-host'],
    ['http://ex%ample.com/', 'invalid-host'],
    ['http://a*b.com/', 'invalid-host'],
    ['%', 'relative-without-base'],
    ['\\', 'relative-without-base'],
    ['javascript:alert(1)', 'unsupported-scheme'],
    ['   ', 'empty'],
    ['', 'empty'],
  ];

  it('rejects each hostile line with its reason and keeps every good URL around it', () => {
    const lines: Line[] = [];
    hostile.forEach(([h]) => lines.push(`http://good.com/${lines.length}`, h));
    lines.push('http://good.com/last');
    const b = canonicalizeBatch(chunkOf(lines), resolvePolicy());
    assert.deepEqual(b.rejects.map((r) => r.reason), hostile.map(([, reason]) => reason));
    assert.deepEqual(urls(b), lines.filter((_, i) => i % 2 === 0).map((l) => String(l)));
    for (const r of b.rejects) assert.ok((REJECT_REASONS as readonly string[]).includes(r.reason));
  });

  it('canonicalizes a URL of several megabytes without choking', () => {
    const huge = 'http://a.com/' + 'ab%7e|'.repeat(350_000);
    const b = canonicalizeBatch(chunkOf([huge, 'http://z.com/']), resolvePolicy());
    assert.equal(b.count, 2);
    assert.equal(urls(b)[0], 'http://a.com/' + 'ab~%7C'.repeat(350_000));
    assert.equal(urls(b)[1], 'http://z.com/');
  });

  it('treats a stray % and backslashes in http URLs as WHATWG does, never throwing', () => {
    const b = canonicalizeBatch(chunkOf(['http://a.com/100%', 'http:\\\\a.com\\x', 'http://a.com/%']), resolvePolicy());
    assert.deepEqual(urls(b), ['http://a.com/100%25', 'http://a.com/x', 'http://a.com/%25']);
  });
});

describe('GSA federal host lists', () => {
  for (const file of GSA_FILES) {
    const full = path.join(GSA, file);
    it(`canonicalizes or rejects with a reason every host of ${file}`, { skip: !existsSync(full) }, () => {
      const hostsList = readFileSync(full, 'utf8').split('\n').slice(1).filter((l) => l.length > 0).map((l) => l.split(',')[0]!);
      const b = canonicalizeBatch(chunkOf(hostsList.map((h) => `http://${h}/`)), resolvePolicy());
      assert.equal(b.count + b.rejects.length, hostsList.length);
      for (const r of b.rejects) assert.ok((REJECT_REASONS as readonly string[]).includes(r.reason));
      for (const u of urls(b)) assert.match(u, /^http:\/\/[\x21-\x7e]+\/$/);
      assert.ok(b.count > hostsList.length * 0.99, `only ${b.count} of ${hostsList.length} canonicalized`);
    });
  }
});
