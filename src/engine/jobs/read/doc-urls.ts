// Drum.urls(): the URL each docID was assigned to, read from the URL log at
// the committed state (src/store/url-log/url-log-reader.ts: a binary search of the
// block index and one block read per lookup, the block kept for the next
// one). A docID the store never assigned — or assigned before its URL log
// began — answers null. Does not check that the URL is still stored: a
// forgotten URL's docID keeps its text. Reads only.

import { UrlLogReader } from '../../../store/url-log/url-log-reader.js';
import { urlLogOf } from '../../../store/url-log/url-log-format.js';
import type { Session } from '../../session/session.js';

export function docUrls(s: Session, docIds: Iterable<number>): (string | null)[] {
  const r = new UrlLogReader(s.dfs, s.dir, urlLogOf(s.store.body));
  const out: (string | null)[] = [];
  try {
    for (const d of docIds) out.push(r.url(d));
  } finally {
    r.close();
  }
  return out;
}
