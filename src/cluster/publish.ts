// The publisher role (`drum publish`): reads link inputs exactly as `drum
// ingest` does (formats, canonical policy, rejects), takes each canonical
// URL's shard from its host fingerprint (under a SURT policy it sends the
// canonical URL, not the SURT key, which the shard makes) and publishes newline-separated
// batches to drum.links.<shard>, in input order per shard, waiting for every
// PubAck before it returns; a message whose PubAck failed is sent again with
// its message id. Does not dedupe URLs (the shards do) and keeps no state.
// REQUIRES: the streams exist or may be created (ensureStreams).

import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient, type PubAck } from '@nats-io/jetstream';
import { BatchScratch, canonicalizeBatch } from '../canonicalize/batch.js';
import { resolvePolicy } from '../canonicalize/policy.js';
import type { CanonicalBatch, CanonicalPolicyOptions } from '../canonicalize/types.js';
import type { ReadOptions } from '../engine/api.js';
import { DrumError } from '../errors.js';
import { hostHash } from '../fingerprint/key.js';
import { readInputs } from '../input/read.js';
import type { Reject } from '../input/types.js';
import { formatReject, REJECTS_HEADER } from '../output/rejects.js';
import { H_COUNT, H_SHARD, H_SHARDS, LINKS_BATCH_BYTES, linksSubject, shardOfHost } from './subjects.js';

export interface PublishRequest extends ReadOptions {
  inputs: string[];
  shards: number;
  canonical: CanonicalPolicyOptions;
  /** Where rejected lines go (rejects.tsv format); null: counted only. */
  rejectsFile: string | null;
}

export interface PublishReport {
  linksRead: number;
  urlsPublished: number;
  rejectedLines: number;
  messages: number;
  perShard: number[];
  elapsedMs: number;
}

/** PubAcks awaited at once: enough to keep the link busy, bounded RAM. */
const IN_FLIGHT = 64;

/** Reads the inputs, canonicalizes their links and publishes each to its host's shard; returns once every PubAck came. */
export async function publishLinks(nc: NatsConnection, req: PublishRequest): Promise<PublishReport> {
  const t0 = performance.now();
  const js = jetstream(nc);
  // A shard canonicalizes what it is sent again, and a SURT key is not a URL: under a SURT policy the publisher sends
  // the canonical URL the key is made of (the policy keeps it as it is), routed by its host, and the shards key it.
  const keyed = resolvePolicy(req.canonical);
  const policy = keyed.surt ? { ...keyed, surt: false } : keyed;
  const scratch = new BatchScratch();
  const report: PublishReport = { linksRead: 0, urlsPublished: 0, rejectedLines: 0, messages: 0, perShard: new Array<number>(req.shards).fill(0), elapsedMs: 0 };
  const batches = new ShardBatches(js, req.shards, report);
  const rejects = req.rejectsFile === null ? null : createWriteStream(req.rejectsFile);
  rejects?.write(REJECTS_HEADER);
  try {
    for (let i = 0; i < req.inputs.length; i++) {
      for await (const chunk of readInputs([{ path: req.inputs[i]! }], {
        format: req.format ?? 'auto', maxLineBytes: policy.maxLineBytes, chunkBytes: 1 << 20,
        links: req.links, warcLinks: req.warcLinks,
      })) {
        const batch = canonicalizeBatch(chunk, policy, scratch);
        writeRejects(rejects, i, chunk.rejects, batch.rejects, report);
        report.linksRead += batch.count + chunk.rejects.length + batch.rejects.length;
        await batches.add(batch);
      }
    }
    await batches.finish();
  } catch (e) {
    await batches.drain();
    if (e instanceof DrumError) throw e;
    throw new DrumError('DRUM_IO', `publishing links failed: ${(e as Error).message}`, { cause: e });
  } finally {
    if (rejects !== null) await closeStream(rejects);
  }
  report.elapsedMs = performance.now() - t0;
  return report;
}

/**
 * The per-shard batches being filled and the messages on their way: a
 * shard's batch goes out as one message (message id: the run's id and the
 * message's number) when its next URL would overflow it, and PubAcks are
 * awaited IN_FLIGHT at a time. Counts messages and URLs into the report.
 */
class ShardBatches {
  private readonly parts: Buffer[][];
  private readonly sizes: number[];
  private readonly counts: number[];
  private readonly inFlight: Sent[] = [];
  private readonly run = randomUUID();

  constructor(
    private readonly js: JetStreamClient,
    private readonly shards: number,
    private readonly report: PublishReport,
  ) {
    this.parts = Array.from({ length: shards }, () => []);
    this.sizes = new Array<number>(shards).fill(0);
    this.counts = new Array<number>(shards).fill(0);
  }

  /** Adds each canonical URL of `batch` to its host's shard, sending that shard's batch first when the URL would overflow it. */
  async add(batch: CanonicalBatch): Promise<void> {
    const { parts, sizes, counts, report } = this;
    let start = 0;
    for (let k = 0; k < batch.count; k++) {
      const end = batch.ends[k]!;
      const shard = shardOfHost(hostHash(batch.bytes, batch.hostStarts[k]!, batch.hostEnds[k]!), this.shards);
      if (sizes[shard]! + (end - start) + 1 > LINKS_BATCH_BYTES) await this.flush(shard);
      parts[shard]!.push(Buffer.from(batch.bytes.subarray(start, end)), NEWLINE);
      sizes[shard]! += end - start + 1;
      counts[shard]!++;
      report.perShard[shard]!++;
      report.urlsPublished++;
      start = end;
    }
  }

  /** Sends every shard's batch and waits for every PubAck. */
  async finish(): Promise<void> {
    for (let s = 0; s < this.shards; s++) await this.flush(s);
    await settle(this.inFlight.splice(0, this.inFlight.length));
  }

  /** Waits for the PubAcks still out, whatever each answers (after a failure). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.inFlight.map((x) => x.ack));
  }

  /** Sends shard's batch, if it holds any URL, as one message; settles the PubAcks out once IN_FLIGHT are. */
  private async flush(shard: number): Promise<void> {
    if (this.counts[shard] === 0) return;
    const h = headers();
    h.set(H_SHARD, String(shard));
    h.set(H_SHARDS, String(this.shards));
    h.set(H_COUNT, String(this.counts[shard]));
    const payload = Buffer.concat(this.parts[shard]!);
    this.parts[shard] = [];
    this.sizes[shard] = 0;
    this.counts[shard] = 0;
    const msgID = `${this.run}.${this.report.messages++}`;
    const send = (): Promise<PubAck> => this.js.publish(linksSubject(shard), payload, { headers: h, msgID });
    const ack = send();
    // settle() reads how it ended; one failing before then (a PubAck timeout while the input is quiet) must not be
    // an unhandled rejection, which ends the process instead of sending the message again.
    ack.catch(() => undefined);
    this.inFlight.push({ ack, send });
    if (this.inFlight.length >= IN_FLIGHT) await settle(this.inFlight.splice(0, this.inFlight.length));
  }
}

const NEWLINE = Buffer.from('\n');
const RETRIES = 40;
const RETRY_MS = 500;

/** A message on its way: its PubAck, and how to send it again (same message id) if that fails. */
interface Sent {
  ack: Promise<PubAck>;
  send: () => Promise<PubAck>;
}

/**
 * Waits for every PubAck; a failed one (a node died, a leader moved) is sent
 * again with the same message id, so JetStream stores it once.
 */
async function settle(sent: Sent[]): Promise<void> {
  const r = await Promise.allSettled(sent.map((x) => x.ack));
  for (let i = 0; i < sent.length; i++) {
    if (r[i]!.status === 'fulfilled') continue;
    for (let attempt = 0; ; attempt++) {
      try {
        await sent[i]!.send();
        break;
      } catch (e) {
        if (attempt >= RETRIES) throw e;
        await new Promise((done) => setTimeout(done, RETRY_MS));
      }
    }
  }
}

function writeRejects(out: WriteStream | null, input: number, a: readonly Reject[], b: readonly Reject[], r: PublishReport): void {
  r.rejectedLines += a.length + b.length;
  if (out === null) return;
  for (const x of a.concat(b).sort((p, q) => p.line - q.line)) out.write(formatReject({ ...x, input }));
}

function closeStream(w: WriteStream): Promise<void> {
  return new Promise((done, fail) => w.end((e?: Error | null) => (e ? fail(e) : done())));
}
