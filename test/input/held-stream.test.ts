// HeldStream (src/input/held-stream.ts): a stream input read ahead by a peek
// (here through openInput and gunzip, whose feeder reads ahead of what the
// peek asks) and then replayed whole, from its first byte, in order; a
// source error reaches the replay after every piece before it; ending the
// peek leaves the source open, and close() releases it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { HeldStream } from '../../src/input/held-stream.js';
import { openInput } from '../../src/input/open.js';

/** A source yielding `data` in pieces of `size` bytes, each after a tick; `fail` throws after them; counts return(). */
function source(data: Buffer, size: number, fail?: Error): { it: AsyncIterable<Buffer>; returned: () => number } {
  let returned = 0;
  const it = {
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        async next(): Promise<IteratorResult<Buffer>> {
          await new Promise((r) => setImmediate(r));
          if (at < data.length) {
            const b = data.subarray(at, at + size);
            at += size;
            return { done: false, value: Buffer.from(b) };
          }
          if (fail) throw fail;
          return { done: true, value: undefined };
        },
        async return(): Promise<IteratorResult<Buffer>> {
          returned++;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { it, returned: () => returned };
}

async function all(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const b of it) out.push(b);
  return Buffer.concat(out);
}

const TEXT = Buffer.from(Array.from({ length: 3_000 }, (_, i) => `http://s${i % 97}.example/\thttp://t${i}.example/\n`).join(''));

describe('HeldStream', () => {
  it('replays every byte in order after a peek through gunzip read part of it, whatever the piece size', async () => {
    for (const [data, gz] of [[TEXT, false], [gzipSync(TEXT), true]] as const) {
      for (const size of [1, 7, 100, 4096, 1 << 20]) {
        const src = source(data, size);
        const held = new HeldStream(src.it);
        const peeked = await openInput('-', { stdin: held.peek() });
        assert.equal(peeked.gzip, gz);
        await peeked.bytes!.next();
        await peeked.close();
        assert.equal(src.returned(), 0, 'ending the peek left the source open');
        assert.ok((await all(held.replay())).equals(data), `gzip ${gz}, pieces of ${size}`);
        assert.equal(src.returned(), 0, 'a source read to its end needs no return');
      }
    }
  });

  it('delivers a source error to the replay after every piece before it', async () => {
    const boom = Object.assign(new Error('read failed'), { code: 'EIO' });
    const held = new HeldStream(source(TEXT, 1000, boom).it);
    const peek = held.peek();
    await peek.next();
    await peek.return(undefined);
    const got: Buffer[] = [];
    await assert.rejects(async () => {
      for await (const b of held.replay()) got.push(b);
    }, boom);
    assert.ok(Buffer.concat(got).equals(TEXT));
  });

  it('releases an unread source on close, and a replay then ends', async () => {
    const src = source(TEXT, 1000);
    const held = new HeldStream(src.it);
    await held.peek().next();
    await held.close();
    assert.equal(src.returned(), 1);
    assert.equal((await all(held.replay())).length, 0);
  });
});
