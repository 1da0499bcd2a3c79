// forget --host: which stored keys belong to an exact host. A host's keys
// share the top `hostBits` bits of the key (its host fingerprint), so they
// lie in one key range — but so do the keys of every other host with the
// same fingerprint (24 bits collide past ~2^12 hosts). Exactness comes from
// the value stored with each key (url-values.ts): its `hostCheck`, a second
// 32-bit fingerprint of the canonical host[:port] under another seed. A key
// of the range is forgotten only when its value's host check is known and
// equal to the host's; a key whose host check is unknown (stored before the
// store had values) is kept and counted, never guessed.
// Reads the candidate buckets' key and values files sequentially (one pass
// per bucket); writes nothing. The caller adds the found keys to the delete
// round, each with the aux payload TAB + host, which tells them apart from
// listed URLs when the round dispatches.
// REQUIRES: a store with values (Session.valued); the targets canonicalized
// with the store's policy.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError } from '../../../errors.js';
import { hostCheckOf } from '../../../fingerprint/key.js';
import type { Session } from '../../session/session.js';
import type { ParsedChunk } from '../../pipeline/parse.js';
import { readLoop } from '../../pipeline/read-loop.js';
import type { ValueSource } from '../../../store/values/value-io.js';
import { FLAG_HOST_CHECK, URL_VALUE_WORDS, V_FLAGS, V_HOST_CHECK } from '../../url-seen/url-values.js';

/** A host to forget: its canonical name, the top `hostBits` bits of its keys' hi word, and its host check. */
export interface HostTarget {
  host: string;
  /** hi >>> (32 - hostBits): the host fingerprint every key of the host starts with (0 when hostBits is 0). */
  prefix: number;
  check: number;
  /** Keys of this host found (and so forgotten by the round). */
  found: number;
  /** Keys in the host's range whose host check is unknown: kept. */
  unknown: number;
}

/** The aux payload's first byte of a key found by host (a canonical URL never starts with a tab). */
export const HOST_PAYLOAD_MARK = 0x09;

/** Targets of one parsed chunk of `http://HOST/` lines (one line per host, in the order given). */
export function hostTargets(p: ParsedChunk, hostBits: number, given: readonly string[]): HostTarget[] {
  if (p.rejects.length > 0) {
    const r = p.rejects[0]!;
    throw new DrumError('DRUM_BAD_OPTION', `hosts (--host): ${JSON.stringify(given[r.line - 1] ?? '')} is not a host drum can key (${r.reason})`);
  }
  const out: HostTarget[] = [];
  const { batch, keys } = p;
  const dec = new TextDecoder();
  for (let i = 0; i < batch.count; i++) {
    const hs = batch.hostStarts[i]!;
    const he = batch.hostEnds[i]!;
    const hi = keys[2 * i]!;
    out.push({
      host: dec.decode(batch.bytes.subarray(hs, he)), prefix: hostBits === 0 ? 0 : hi >>> (32 - hostBits),
      check: hostCheckOf(batch.bytes, hs, he), found: 0, unknown: 0,
    });
  }
  return out;
}

/**
 * Calls add(hi, lo, target) for every stored key of each target host, in key
 * order per bucket. Counts, per target, the keys found and the keys of its
 * range with an unknown host check.
 */
export function scanHostKeys(s: Session, targets: HostTarget[], add: (hi: number, lo: number, t: HostTarget) => void): void {
  const hostBits = s.store.params.hostBits;
  const bucketBits = Math.log2(s.store.params.buckets);
  const shift = 32 - hostBits;
  const body = s.store.body;
  const value = new Uint32Array(URL_VALUE_WORDS);
  for (let b = 0; b < body.buckets.length; b++) {
    const e = body.buckets[b];
    if (!e || e.keys === 0) continue;
    // The targets whose key range meets this bucket (a bucket is the top bucketBits bits of hi).
    const here = targets.filter((t) => hostBits === 0 || sharePrefix(t.prefix, hostBits, b, bucketBits));
    if (here.length === 0) continue;
    const keys = s.store.openReader(b);
    let vals: ValueSource | null = null;
    try {
      // Opening the values reads a delta's first block: a damaged one throws with the key file open.
      vals = s.store.openValues(b);
      if (keys === null || vals === null) throw new DrumError('DRUM_NEEDS_UPGRADE', `bucket ${b} has no values file: run drum upgrade`);
      let skip = 0; // values to pass over before the next one read
      while (keys.nextBlock()) {
        const k = keys.keys;
        for (let i = 0; i < keys.n; i++) {
          const hi = k[2 * i]!;
          const prefix = hostBits === 0 ? 0 : hi >>> shift;
          let t: HostTarget | undefined;
          for (const x of here) if (x.prefix === prefix) t = t ?? x;
          if (t === undefined) {
            skip++;
            continue;
          }
          vals.copy(skip, null);
          skip = 0;
          vals.take(value, 0);
          if ((value[V_FLAGS]! & FLAG_HOST_CHECK) === 0) {
            for (const x of here) if (x.prefix === prefix) x.unknown++;
            continue;
          }
          for (const x of here) {
            if (x.prefix === prefix && x.check === value[V_HOST_CHECK]) {
              x.found++;
              add(hi, k[2 * i + 1]!, x);
              break;
            }
          }
        }
      }
    } finally {
      keys?.close();
      vals?.close();
    }
  }
}

/** True when the host range (prefix of hostBits bits) and bucket b (bucketBits bits) can hold the same keys. */
function sharePrefix(prefix: number, hostBits: number, b: number, bucketBits: number): boolean {
  const bits = Math.min(hostBits, bucketBits);
  if (bits === 0) return true;
  return prefix >>> (hostBits - bits) === b >>> (bucketBits - bits);
}

/**
 * forget --host: canonicalizes each host as the URL `http://HOST/` with the
 * store's policy (so `Example.COM:80` is `example.com`), then passes every
 * stored key of each to `add` with its aux payload (TAB + host). Returns the
 * targets with their counts. DRUM_NEEDS_UPGRADE on a store without values.
 */
export async function routeHosts(s: Session, hosts: readonly string[], add: (hi: number, lo: number, payload: Buffer) => void): Promise<HostTarget[]> {
  if (!s.valued) {
    throw new DrumError('DRUM_NEEDS_UPGRADE', 'forgetting by hosts (--host) needs a host check stored with each URL, which this store (keys only) lacks: the 24-bit host fingerprint alone could remove another host\'s URLs; run drum upgrade first');
  }
  const given = [...new Set(hosts)];
  // '@' and '\\' too: `user@other.example` would read as userinfo, `a.example\\x` as a path, each forgetting another host.
  for (const h of given) if (h === '' || /[\s/?#@\\]/.test(h)) throw new DrumError('DRUM_BAD_OPTION', `hosts (--host): ${JSON.stringify(h)} is not a host[:port]`);
  const path = join(s.workDir, 'forget-hosts.txt');
  const text = given.map((h) => `http://${h}/\n`).join('');
  const targets: HostTarget[] = [];
  try {
    s.dfs.writeFile(path, text);
    await readLoop(s, {
      inputs: [{ path, bytes: Buffer.byteLength(text), sha256: '', sampled: false }], from: { input: 0, offset: 0, line: 0 }, skip: [false],
      read: { format: 'lines' }, onBytes: () => {}, onInputDone: () => {}, learn: false,
      onChunk: (p) => void targets.push(...hostTargets(p, s.store.params.hostBits, given)),
    });
  } finally {
    fs.rmSync(path, { force: true });
  }
  const payloads = new Map(targets.map((t) => [t, Buffer.from(`\t${t.host}`, 'latin1')]));
  scanHostKeys(s, targets, (hi, lo, t) => add(hi, lo, payloads.get(t)!));
  return targets;
}
