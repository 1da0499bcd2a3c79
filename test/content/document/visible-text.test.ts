// Visible words: markup, comments, scripts and the boilerplate-prone parts
// (head, nav, header, footer, aside, forms, class/id naming ads, menus,
// sidebars) are left out; words are case-folded; the same text in another
// template gives the same words.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WordBuffer, documentWords, htmlWords, textWords } from '../../../src/content/document/visible-text.js';

function words(html: string): number[] {
  const out = new WordBuffer();
  documentWords(Buffer.from(html), true, out);
  return Array.from(out.words.subarray(0, out.n));
}
function plain(text: string): number[] {
  const out = new WordBuffer();
  textWords(Buffer.from(text), 0, Buffer.byteLength(text), out);
  return Array.from(out.words.subarray(0, out.n));
}

describe('visible text', () => {
  it('keeps the article words and leaves out markup and boilerplate parts', () => {
    const html =
      '<html><head><title>T</title><style>p{x:1}</style></head><body><header>Site Name</header>' +
      '<nav><a href="/">Home</a></nav><!-- a comment --><script>if (a<b) { x = "</p>" }</script>' +
      '<div id="main"><p>The quick <b>brown</b> fox.</p></div><div class="ad-slot">Buy now</div>' +
      '<div id="sidebar"><div>nested <div>deep</div> still</div></div><aside>related</aside>' +
      '<form><input value=x>search</form><footer>Copyright</footer></body></html>';
    assert.deepEqual(words(html), plain('the quick brown fox'));
  });

  it('gives the same words for the same text in two templates', () => {
    const a = '<body><nav>A B C</nav><article><p>One two three four</p></article><footer>x</footer></body>';
    const b = '<body><header>Other</header><div class="menu">M N</div><p>ONE two   three&nbsp;four</p></body>';
    assert.deepEqual(words(a), words(b));
  });

  it('separates words at entities, tags and punctuation and keeps non-ASCII bytes in words', () => {
    assert.equal(plain('caf\u00e9 au-lait').length, 3);
    const out = new WordBuffer();
    const b = Buffer.from('a&amp;b<br>c');
    htmlWords(b, 0, b.length, out);
    assert.equal(out.n, 3); // a, b, c: the reference is no word
  });

  it('reads plain text as all words', () => {
    const out = new WordBuffer();
    documentWords(Buffer.from('<b>not markup</b>'), false, out);
    assert.equal(out.n, 4);
  });
});
