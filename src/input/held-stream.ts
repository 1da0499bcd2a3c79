// A stream input (stdin, a FIFO, `<(...)`) read ahead before a run starts:
// one reader (the peek that tells its format) takes its first pieces, and
// the run then reads it again from its first byte (replay), the peeked
// pieces first, then the rest of the source; a source error is delivered to
// the run after every piece before it. Reads the source one piece at a time
// whoever asks, so the two readers never race for it. Does not decode gzip
// or detect formats (open.ts, peek.ts do).
// REQUIRES: the peek is done (or abandoned) before replay() is called; the
// replay is read by one reader.

import { iteratorOf, toBuffer, type ByteStream } from './open.js';

export class HeldStream {
  private readonly src: AsyncIterator<Buffer>;
  /** Pieces read from the source and not yet replayed. */
  private readonly pieces: Buffer[] = [];
  private ended = false;
  private failed: { e: unknown } | null = null;
  /** The source read in progress (one at a time). */
  private reading: Promise<void> | null = null;
  /** The peek is over: it reads nothing more, and the replay owns the pieces. */
  private handedOff = false;
  private closed = false;

  constructor(source: ByteStream) {
    this.src = iteratorOf(source);
  }

  /** The first reader's view: the source's pieces from the start; ending it early leaves the source open. */
  async *peek(): AsyncGenerator<Buffer> {
    for (let i = 0; !this.handedOff; ) {
      if (i < this.pieces.length) yield this.pieces[i++]!;
      else if (this.failed !== null) throw this.failed.e;
      else if (this.ended) return;
      else await this.more();
    }
  }

  /** The run's view: the whole input from its first byte; ending it (or its end) closes the source. */
  replay(): AsyncGenerator<Buffer> {
    this.handedOff = true;
    return this.replayPieces();
  }

  /** Releases the source (an unread stdin or FIFO); a replay then ends. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handedOff = true;
    this.pieces.length = 0;
    await this.reading;
    if (!this.ended) await this.src.return?.();
  }

  private async *replayPieces(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const b = this.pieces.shift();
        if (b !== undefined) yield b;
        else if (this.failed !== null) throw this.failed.e;
        else if (this.ended || this.closed) return;
        else await this.more();
      }
    } finally {
      await this.close();
    }
  }

  /** Reads one more piece into `pieces`, or the source's end or error; a read already under way is waited for instead. */
  private more(): Promise<void> {
    this.reading ??= this.src.next().then(
      (r) => {
        if (r.done) this.ended = true;
        else if (!this.closed) this.pieces.push(toBuffer(r.value));
      },
      (e: unknown) => void (this.failed ??= { e }),
    ).finally(() => (this.reading = null));
    return this.reading;
  }
}
