// Runs the parse stage on worker threads so canonicalize + hash use the
// other cores while the main thread routes keys, merges and writes. Results
// come back in submission order. With 0 workers it parses inline. Does not
// read inputs or touch the store.

import { Worker } from 'node:worker_threads';
import type { CanonicalPolicy } from '../canonicalize/types.js';
import { DrumError } from '../errors.js';
import type { LineChunk } from '../input/types.js';
import { Parser, attach, detachChunk, type ParsedChunk } from './parse.js';

interface Pending {
  resolve: (p: ParsedChunk) => void;
  reject: (e: unknown) => void;
}

export class ParsePool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Pending>();
  private readonly inline: Parser | null;
  private nextId = 0;
  private failed: unknown = null;
  /** Milliseconds the main thread spent parsing inline. */
  inlineMs = 0;

  constructor(policy: CanonicalPolicy, hostBits: number, workers: number) {
    this.inline = workers === 0 ? new Parser(policy, hostBits) : null;
    for (let i = 0; i < workers; i++) {
      const w = new Worker(new URL('./parse-worker.js', import.meta.url), { workerData: { policy, hostBits } });
      w.on('message', (m: { id: number; parsed?: ParsedChunk; error?: { message: string } }) => {
        const p = this.waiting.get(m.id);
        if (!p) return;
        this.waiting.delete(m.id);
        if (m.error) p.reject(new DrumError('DRUM_INTERNAL', `parse worker: ${m.error.message}`));
        else p.resolve(attach(m.parsed!));
      });
      w.on('error', (e) => this.fail(e));
      this.workers.push(w);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * Parses a chunk. Inline: synchronously, and the result is only valid until
   * the next call. Pooled: the chunk is copied to a worker (round robin).
   */
  parse(chunk: LineChunk): Promise<ParsedChunk> | ParsedChunk {
    if (this.failed) throw this.failed;
    if (this.inline !== null) {
      const t = performance.now();
      const r = this.inline.parse(chunk);
      this.inlineMs += performance.now() - t;
      return r;
    }
    const id = this.nextId++;
    const w = this.workers[id % this.workers.length]!;
    const { chunk: own, transfer } = detachChunk(chunk);
    return new Promise<ParsedChunk>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.postMessage({ id, chunk: own }, transfer);
    });
  }

  private fail(e: unknown): void {
    this.failed = new DrumError('DRUM_INTERNAL', `parse worker died: ${(e as Error).message}`, { cause: e });
    for (const p of this.waiting.values()) p.reject(this.failed);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
