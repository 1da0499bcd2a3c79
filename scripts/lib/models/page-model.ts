// Bench-only model of a site's pages for the content-dedup generator
// (scripts/gen-warc.ts): a seeded vocabulary, hosts with a template
// (header, navigation, sidebar, ad block, an unmarked site notice, footer)
// shared by all their pages, articles as paragraphs of words, near copies
// (a fraction of the words replaced, paragraphs reordered, another date and
// ad), and URL variants that do not change a page (ref=, sessionid=,
// index.html, trailing slash). Deterministic from the PRNG it is given.
// Not part of drum. REQUIRES: one Sfc32 per generator run.

import { Sfc32, zipfIndex } from './prng.js';

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'ri', 'po', 've', 'da', 'gu', 'shi', 'an', 'el', 'or', 'um', 'tre', 'bla', 'cor', 'fin'];

export function vocabulary(rng: Sfc32, n: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < n) {
    let w = '';
    const k = 1 + rng.int(4);
    for (let i = 0; i < k; i++) w += SYLLABLES[rng.int(SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}

export interface Host {
  name: string;
  title: string;
  nav: string[];
  footer: string;
  notice: string;
  sidebar: string[];
}

export interface Article {
  title: string;
  date: string;
  paragraphs: string[][];
  ad: string;
}

export class PageModel {
  readonly words: string[];
  constructor(readonly rng: Sfc32, vocab = 5000) {
    this.words = vocabulary(rng, vocab);
  }

  word(): string {
    return this.words[zipfIndex(this.rng.float(), this.words.length)]!;
  }

  phrase(n: number): string {
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(this.word());
    return w.join(' ');
  }

  host(i: number): Host {
    const nav: string[] = [];
    for (let k = 0; k < 8; k++) nav.push(this.phrase(1 + this.rng.int(2)));
    const sidebar: string[] = [];
    for (let k = 0; k < 5; k++) sidebar.push(this.phrase(3 + this.rng.int(4)));
    return { name: `www.site${i}.example`, title: this.phrase(2), nav, footer: this.phrase(12), notice: this.phrase(18), sidebar };
  }

  date(): string {
    const d = 1 + this.rng.int(28);
    const m = 1 + this.rng.int(12);
    return `2008-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  }

  article(): Article {
    const paragraphs: string[][] = [];
    const np = 4 + this.rng.int(5);
    for (let p = 0; p < np; p++) {
      const para: string[] = [];
      const nw = 40 + this.rng.int(51);
      for (let k = 0; k < nw; k++) para.push(this.word());
      paragraphs.push(para);
    }
    return { title: this.phrase(4 + this.rng.int(4)), date: this.date(), paragraphs, ad: this.phrase(10) };
  }

  /** A near copy: `frac` of the words replaced, two paragraphs swapped, another date and ad. */
  nearCopy(a: Article, frac: number): Article {
    const paragraphs = a.paragraphs.map((p) => p.map((w) => (this.rng.float() < frac ? this.word() : w)));
    const i = this.rng.int(paragraphs.length);
    const j = this.rng.int(paragraphs.length);
    [paragraphs[i], paragraphs[j]] = [paragraphs[j]!, paragraphs[i]!];
    return { title: a.title, date: this.date(), paragraphs, ad: this.phrase(10) };
  }
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** The HTML of an article on a host's template. */
export function renderPage(h: Host, a: Article, adInAside: boolean): string {
  const nav = h.nav.map((n, k) => `<li><a href="/section${k}/">${esc(n)}</a></li>`).join('');
  const side = h.sidebar.map((s, k) => `<li><a href="/popular/${k}.html">${esc(s)}</a></li>`).join('');
  const body = a.paragraphs.map((p) => `<p>${esc(p.join(' '))}.</p>`).join('\n');
  const ad = adInAside ? `<aside class="promo">${esc(a.ad)}</aside>` : `<div class="ad-slot"><a href="http://ads.example/c?${a.ad.length}">${esc(a.ad)}</a></div>`;
  return `<!DOCTYPE html>\n<html><head><title>${esc(a.title)} - ${esc(h.title)}</title>` +
    `<style>body{font:14px serif} .ad-slot{float:right}</style><script>var t=${a.title.length};if(t<0){document.write('<p>x</p>')}</script></head>\n` +
    `<body><header><h1>${esc(h.title)}</h1></header><nav><ul>${nav}</ul></nav>\n` +
    `<div id="main"><article><h2>${esc(a.title)}</h2><p class="date">Published ${a.date}</p>\n${body}\n</article></div>\n${ad}\n` +
    `<div id="sidebar"><h3>Popular</h3><ul>${side}</ul></div>\n` +
    `<div class="notice">${esc(h.notice)}</div>\n<footer><p>Copyright 2008 ${esc(h.title)}. ${esc(h.footer)}</p></footer></body></html>\n`;
}

export type UrlVariant = 'ref' | 'sessionid' | 'index.html' | 'trailing-slash';
export const URL_VARIANTS: readonly UrlVariant[] = ['ref', 'sessionid', 'index.html', 'trailing-slash'];

/** A page's own URL: a directory (`/section/slug/`) or a file (`/yyyy/id.html`). */
export function articleUrl(rng: Sfc32, host: Host, id: number, dir: boolean): string {
  return dir ? `http://${host.name}/section${rng.int(8)}/story-${id}/` : `http://${host.name}/2008/${id}.html`;
}

/** The URL with a variant that does not change the page; null when the variant does not apply. */
export function urlVariant(rng: Sfc32, url: string, v: UrlVariant): string | null {
  const q = url.includes('?') ? '&' : '?';
  switch (v) {
    case 'ref':
      return `${url}${q}ref=${['home', 'rss', 'mail', 'twitter'][rng.int(4)]}`;
    case 'sessionid':
      return `${url}${q}sessionid=${(rng.next() >>> 0).toString(16)}${(rng.next() >>> 0).toString(16)}`;
    case 'index.html':
      return url.endsWith('/') ? `${url}index.html` : null;
    case 'trailing-slash':
      return url.endsWith('/') ? url.slice(0, -1) : null;
  }
}
