// Test helpers for the host table tests: rounds drawn as host-count parts
// from a seed, the plain Map model they are checked against, rounds written
// the way older catalogs wrote them (parts as LevelDB values), a LevelDB
// batch failure injected like a crash, the files under hosts/, and the one
// assertion every test makes: the catalog's counts equal the model's.
// Test-only.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog, HostCount } from '../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { roundKey } from '../../../src/catalog/keys.js';

/** Host -> its count, as the rounds added them. */
export type Model = Map<string, number>;

/** A round as several parts; a host may appear in more than one part. */
export function roundParts(seed: number, hosts: number, parts: number): Map<string, number>[] {
  const out: Map<string, number>[] = [];
  let x = seed;
  for (let p = 0; p < parts; p++) {
    const m = new Map<string, number>();
    for (let i = 0; i < hosts; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      if (x % 3 === 0) m.set(`h${(x >>> 8) % (2 * hosts)}.example`, 1 + (x % 5));
    }
    out.push(m);
  }
  return out;
}

/** Adds every part's counts to the model. */
export function addTo(model: Model, parts: Map<string, number>[]): void {
  for (const m of parts) for (const [h, n] of m) model.set(h, (model.get(h) ?? 0) + n);
}

/** The model as topHosts lists it: most URLs first, then by name. */
function sorted(m: Model): HostCount[] {
  return [...m].map(([host, uniqueUrls]) => ({ host, uniqueUrls })).sort((a, b) => b.uniqueUrls - a.uniqueUrls || (a.host < b.host ? -1 : 1));
}

/** Yields the encoded parts, then throws like a process dying mid-apply. */
export function* dyingAfter(parts: Map<string, number>[], k: number): Generator<Uint8Array> {
  for (let i = 0; i < k; i++) yield encodeHostMap(parts[i]!);
  throw new Error('simulated crash');
}

type LegacySub = { put: (k: string, v: unknown) => Promise<void>; keys: () => { all: () => Promise<string[]> } };

/** A sublevel of the catalog's LevelDB, reached past its API, as older catalogs used it. */
export function sublevel(c: Catalog, name: string, valueEncoding: string): LegacySub {
  const db = (c as unknown as { db: { sublevel: (n: string, o: unknown) => LegacySub } }).db;
  return db.sublevel(name, { valueEncoding });
}

/** Records a round the way catalogs before the round delta files did: each part a LevelDB value, then the marker. */
export async function applyLegacy(c: Catalog, runId: string, round: number, parts: Map<string, number>[]): Promise<void> {
  const marker = roundKey(runId, round);
  const deltas = sublevel(c, 'hostDeltas', 'view');
  for (let i = 0; i < parts.length; i++) await deltas.put(`${marker}#${String(i).padStart(6, '0')}`, encodeHostMap(parts[i]!));
  await sublevel(c, 'rounds', 'json').put(marker, parts.reduce((a, m) => a + m.size, 0));
}

/** The round delta files under hosts/, in name order. */
export function deltaFiles(state: string): string[] {
  const dir = join(state, 'hosts');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('delta-')).sort() : [];
}

/** The files under hosts/ other than round delta files (host table files, spill leftovers), in name order. */
export function tableFiles(state: string): string[] {
  const dir = join(state, 'hosts');
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith('delta-')).sort() : [];
}

/** Asserts the catalog's top hosts, and the counts of a few hosts, equal the model's. */
export async function expectTable(c: Catalog, model: Model): Promise<void> {
  assert.deepEqual(await c.topHosts(100_000), sorted(model));
  const some = [...model.keys()].slice(0, 3);
  for (const h of some) assert.equal(await c.hostCount(h), model.get(h));
}

/** Makes the catalog's next LevelDB batch writes fail, as if the process died there, from the `at`-th on. */
export function failBatches(c: Catalog, at: number): () => void {
  type Chained = { write: (o?: unknown) => Promise<void> };
  const db = (c as unknown as { db: { batch: (...a: unknown[]) => unknown } }).db;
  const batch = db.batch.bind(db);
  let calls = 0;
  const crashes = (): boolean => ++calls >= at;
  db.batch = (...a: unknown[]) => {
    if (a.length > 0) return crashes() ? Promise.reject(new Error('simulated crash')) : batch(...a);
    const chained = batch() as Chained;
    const write = chained.write.bind(chained);
    chained.write = (o?: unknown) => (crashes() ? Promise.reject(new Error('simulated crash')) : write(o));
    return chained;
  };
  return () => {
    db.batch = batch;
  };
}
