// Test helper: writes URLs into a URL log (one by one, or as one block of
// lines as the worker's dispatch hands them over) and reads a whole log back
// through a reader. Test-only.

import { DrumFs } from '../../src/io/fs.js';
import type { UrlLogPoint } from '../../src/store/url-log/url-log-format.js';
import { UrlLogReader } from '../../src/store/url-log/url-log-reader.js';
import type { UrlLogWriter } from '../../src/store/url-log/url-log-writer.js';

/** Appends `urls` one by one, or as one block of lines (as the worker's dispatch hands them over). */
export function appendUrls(w: UrlLogWriter, urls: string[], asLines: boolean): void {
  if (!asLines) {
    for (const u of urls) {
      const b = Buffer.from(u, 'latin1');
      w.append(b, 0, b.length);
    }
    return;
  }
  const bytes = Buffer.from(urls.map((u) => `${u}\n`).join(''), 'latin1');
  const ends = new Uint32Array(urls.length);
  let at = 0;
  urls.forEach((u, i) => {
    at += u.length;
    ends[i] = at;
    at++;
  });
  w.appendLines(bytes, bytes.length, urls.length, ends);
}

/** Every docID of the log at `p`, through a reader. */
export function readAll(dir: string, p: UrlLogPoint): string[] {
  const r = new UrlLogReader(new DrumFs(), dir, p);
  try {
    const out: string[] = [];
    for (let d = p.base; d < p.base + p.docs; d++) out.push(r.url(d)!);
    return out;
  } finally {
    r.close();
  }
}

