// The Node stream face of the library (through2): a Transform that takes
// URL lines (Buffers or strings, any chunking) and pushes new URLs as
// "url\n" lines, in arrival order, as merges commit; at the end it merges
// and commits what is left. Backpressure is the stream's own. Uses the Feeder.

import { transform } from 'through2';
import type { Feeder } from '../pipeline/feed.js';

export type UrlStream = ReturnType<typeof transform>;

export function feederStream(feeder: Feeder): UrlStream {
  const lines = (urls: string[]): string | null => (urls.length > 0 ? `${urls.join('\n')}\n` : null);
  return transform(async function* (source: AsyncIterable<Buffer | string>) {
    for await (const chunk of source) {
      const out = lines(await feeder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
      if (out !== null) yield out;
    }
    const last = lines(await feeder.end());
    if (last !== null) yield last;
  });
}
