// Link extraction from HTML response records built in the test: base href,
// entities, relative links, rejects, meta refresh, nav vs all, charsets,
// chunked and gzip payloads, metadata outlink lines.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { decodeAttributeEntities } from '../../../src/input/warc/entities.js';
import { NAV, collect, htmlRecord, httpResponse, pieces, urls, warcRecord } from './helpers.js';

const PAGE = 'http://example.com/dir/page.html';

async function linksOf(html: string | Buffer, opts = NAV, headers?: Record<string, string>) {
  return collect(pieces(htmlRecord(PAGE, html, headers)), opts);
}

describe('HTML link extraction from WARC response records', () => {
  it('gives each link the page URL as its base and keeps relative links as written', async () => {
    const c = await linksOf('<html><a href="../up.html">x</a><A HREF=/root?q=1>y</A><a href="sub/">z</a></html>');
    assert.deepEqual(c.links, [
      ['../up.html', PAGE, 1],
      ['/root?q=1', PAGE, 1],
      ['sub/', PAGE, 1],
    ]);
  });

  it('uses the first <base href>, resolved against the page, as the base of later links', async () => {
    const c = await linksOf('<head><base href="/other/"><base href="http://ignored/"></head><a href="a.html">a</a>');
    assert.deepEqual(c.links, [['a.html', 'http://example.com/other/', 1]]);
  });

  it('decodes entities in attribute values but leaves &copy= style query text alone', async () => {
    const c = await linksOf('<a href="/s?a=1&amp;b=2&#38;c=3&#x26;d">1</a><a href="/t?x=1&copy=2">2</a><a href="/u?&lt;">3</a>');
    assert.deepEqual(urls(c), ['/s?a=1&b=2&c=3&d', '/t?x=1&copy=2', '/u?<']);
    assert.equal(decodeAttributeEntities('&eacute;&#233;&#x80;&unknown;'), 'éé€&unknown;');
  });

  it('rejects javascript:, mailto: and fragment-only links with their reasons and keeps the rest', async () => {
    const c = await linksOf('<a href="javascript:go()">j</a><a href="MAILTO:x@y.z">m</a><a href="#top">f</a><a href="ok#frag">o</a>');
    assert.deepEqual(urls(c), ['ok#frag']);
    assert.deepEqual(c.rejects.map((r) => r.reason), ['javascript', 'unsupported-scheme', 'fragment-only']);
    assert.deepEqual(c.rejects.map((r) => [r.line, r.input]), [[1, 7], [1, 7], [1, 7]]);
    assert.equal(c.rejects[1]!.excerpt.toString(), 'MAILTO:x@y.z');
  });

  it('follows meta refresh as a navigation link', async () => {
    const c = await linksOf('<meta http-equiv="Refresh" content="5; URL=\'/next.html\'"><meta content="0;url=/b" http-equiv=refresh>');
    assert.deepEqual(urls(c), ['/next.html', '/b']);
  });

  it('keeps only navigation links with nav and adds embeds with all', async () => {
    const html =
      '<link rel=stylesheet href=/s.css><img src="i.png"><script src="/j.js">var a="<a href=/no>";</script>' +
      '<iframe src="/f"></iframe><form action="/post"></form><area href="/map"><a href="/a">a</a>';
    assert.deepEqual(urls(await linksOf(html)), ['/post', '/map', '/a']);
    assert.deepEqual(urls(await linksOf(html, { ...NAV, links: 'all' })), ['/s.css', 'i.png', '/j.js', '/f', '/post', '/map', '/a']);
  });

  it('skips links inside comments, script and style text', async () => {
    const c = await linksOf('<!-- <a href="/c"> --><style>a{background:url(/x)}</style><script>document.write("<a href=/s>")</script><a href="/real">r</a>');
    assert.deepEqual(urls(c), ['/real']);
  });

  it('strips surrounding spaces and drops newlines inside an href', async () => {
    const c = await linksOf('<a href="  /a\n/b\t ">x</a><a href=\'\'>empty</a>');
    assert.deepEqual(urls(c), ['/a/b']);
    assert.deepEqual(c.rejects.map((r) => r.reason), ['empty']);
  });

  it('decodes a latin-1 page by its declared charset and writes the link as UTF-8', async () => {
    const body = Buffer.concat([Buffer.from('<a href="/caf'), Buffer.from([0xe9]), Buffer.from('">x</a>')]);
    assert.deepEqual(urls(await linksOf(body, NAV, { 'Content-Type': 'text/html; charset=ISO-8859-1' })), ['/café']);
    // No charset anywhere and invalid UTF-8: latin-1 fallback.
    assert.deepEqual(urls(await linksOf(body, NAV, { 'Content-Type': 'text/html' })), ['/café']);
    // <meta charset> when the header has none.
    const meta = Buffer.concat([Buffer.from('<meta charset="windows-1252"><a href="/x'), Buffer.from([0x80]), Buffer.from('">')]);
    assert.deepEqual(urls(await linksOf(meta, NAV, { 'Content-Type': 'text/html' })), ['/x€']);
  });

  it('undoes chunked transfer coding and gzip content coding', async () => {
    const gz = gzipSync(Buffer.from('<a href="/zipped">z</a>'));
    const chunked = Buffer.concat([
      Buffer.from(`${(10).toString(16)}\r\n`),
      gz.subarray(0, 10),
      Buffer.from(`\r\n${(gz.length - 10).toString(16)}\r\n`),
      gz.subarray(10),
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
    const c = await linksOf(chunked, NAV, { 'Content-Type': 'text/html', 'Transfer-Encoding': 'chunked', 'Content-Encoding': 'gzip' });
    assert.deepEqual(urls(c), ['/zipped']);
  });

  it('rejects a response whose gzip payload is corrupt as malformed-record and reads on', async () => {
    const bad = htmlRecord(PAGE, Buffer.from('not gzip at all'), { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' });
    const good = htmlRecord('http://example.com/2', '<a href="/ok">ok</a>');
    const c = await collect(pieces(Buffer.concat([bad, good])));
    assert.deepEqual(c.rejects.map((r) => [r.reason, r.line]), [['malformed-record', 1]]);
    assert.deepEqual(c.links, [['/ok', 'http://example.com/2', 2]]);
  });

  it('sniffs HTML when the response has no Content-Type and ignores non-HTML payloads', async () => {
    assert.deepEqual(urls(await linksOf('<!DOCTYPE html><a href="/s">s</a>', NAV, {})), ['/s']);
    assert.deepEqual(urls(await linksOf('<a href="/not-html">', NAV, { 'Content-Type': 'text/plain' })), []);
  });

  it('takes the Location of a redirect as a navigation link', async () => {
    const rec = warcRecord(
      '1.0',
      { 'WARC-Type': 'response', 'WARC-Target-URI': PAGE, 'Content-Type': 'application/http; msgtype=response' },
      httpResponse({ Location: '/moved', 'Content-Type': 'text/html' }, 'gone', '301 Moved Permanently'),
    );
    assert.deepEqual((await collect(pieces(rec))).links, [['/moved', PAGE, 1]]);
  });

  it('reads Heritrix outlink: lines from metadata records, filtered by hop', async () => {
    const meta = warcRecord(
      '1.0',
      { 'WARC-Type': 'metadata', 'WARC-Target-URI': PAGE, 'Content-Type': 'text/anvl' },
      'via: http://example.com/\r\noutlink: http://example.com/a L a/@href\r\noutlink: http://example.com/i.png E img/@src\r\n' +
        'outlink: http://example.com/x.js X =JS_MISC\r\noutlink: http://example.com/r R Location:\r\n',
    );
    const page = htmlRecord(PAGE, '<a href="/html-link">h</a>');
    const both = Buffer.concat([page, meta]);
    assert.deepEqual(urls(await collect(pieces(both), { ...NAV, warcLinks: 'metadata' })), ['http://example.com/a', 'http://example.com/r']);
    assert.deepEqual(urls(await collect(pieces(both), { ...NAV, warcLinks: 'metadata', links: 'all' })).length, 4);
    assert.deepEqual(urls(await collect(pieces(both), { ...NAV, warcLinks: 'both' })), ['/html-link', 'http://example.com/a', 'http://example.com/r']);
    assert.deepEqual(urls(await collect(pieces(both), NAV)), ['/html-link']);
  });

  it('rejects a link longer than maxLineBytes as too-long', async () => {
    const c = await linksOf(`<a href="/${'x'.repeat(300)}">l</a><a href="/short">s</a>`, { ...NAV, maxLineBytes: 100 });
    assert.deepEqual(urls(c), ['/short']);
    assert.equal(c.rejects[0]!.reason, 'too-long');
    assert.equal(c.rejects[0]!.excerpt.length, 200);
  });
});
