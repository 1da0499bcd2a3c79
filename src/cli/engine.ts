// Loads the engine (src/engine/drum.ts) for the CLI at run time, typed by
// the local interface below that mirrors the engine's public signatures.
// Loading lazily keeps `drum --help`, `drum runs` and `drum hosts` working
// even when the engine module fails to load. Does not wrap or change any
// engine behaviour. A failed load is DRUM_IO when the OS refused a file (e.g.
// EMFILE) and "not built" only when the engine file is missing.
// Precondition: the compiled engine sits at ../engine/drum.js.

import { closeSync, existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DrumError } from '../errors.js';
import type { DrumOptions } from '../options.js';
import type { CanonicalPolicyOptions } from '../canonicalize/types.js';
import type * as Engine from '../engine/drum.js';
import type { ResolveRequest, ResolveResult } from '../engine/jobs/read/resolve.js';
import type { CompactResult } from '../engine/jobs/maintain/compact.js';
import type { CheckRequest, ForgetReport, ForgetRequest, IngestRequest, ReadOptions, RunReport, StoreStats, VerifyResult } from '../engine/api.js';

/** What the CLI uses of an open store (src/engine/drum.ts `Drum`). */
export interface DrumHandle {
  ingest(req: IngestRequest): Promise<RunReport>;
  check(req: CheckRequest): Promise<{ linksRead: number; newUrls: number; rejectedLines: number }>;
  forget(req: ForgetRequest): Promise<ForgetReport>;
  compact(): Promise<CompactResult>;
  stats(): Promise<StoreStats>;
  verify(): Promise<VerifyResult>;
  urls(docIds: Iterable<number>): Promise<(string | null)[]>;
  resolve(req: ResolveRequest): Promise<ResolveResult>;
  close(): Promise<void>;
}

export interface RepairOutcome {
  bloom: { file: string; keys: number; bitsPerKey: number } | null;
  catalog: { rebuilt: boolean; movedTo: string | null; runs: number; salvaged: number; salvageError: string | null; hostRuns: number; countsUnknown: number } | null;
  urlIndex: { blocks: number; docs: number } | null;
}

export interface EngineModule {
  repair(stateDir: string, what: { bloom?: boolean; catalog?: boolean; urlIndex?: boolean; bloomBitsPerKey?: number }): Promise<RepairOutcome>;
  Drum: { open(stateDir: string, opts?: DrumOptions): Promise<DrumHandle> };
  canonicalizeLines(
    inputs: string[],
    opts: { canonical: CanonicalPolicyOptions } & ReadOptions,
    onLine: (line: string) => void,
  ): Promise<void>;
  upgradeStore(stateDir: string, opts?: DrumOptions): Promise<{ upgraded: boolean; urls: number; docIDs: number }>;
  /** Verifies a state directory without opening it for work: a broken manifest is a problem, not a throw. */
  verifyStateDir(stateDir: string): Promise<VerifyResult>;
}

/** Compile-time check that the real engine module provides what the CLI uses. */
const engineConforms: typeof Engine extends EngineModule ? true : never = true;
void engineConforms;

/** The engine's file in the module tree, named by a failed load (the bundled CLI holds the engine in a chunk of its own). */
const ENGINE_URL = new URL('../engine/drum.js', import.meta.url);

let loaded: Promise<EngineModule> | undefined;

export function loadEngine(): Promise<EngineModule> {
  // A literal specifier, so that scripts/bundle-cli.ts's bundler follows it into a lazily loaded chunk.
  loaded ??= (import('../engine/drum.js') as Promise<EngineModule>).catch((e: unknown) => {
    loaded = undefined;
    throw loadFailure(e);
  });
  return loaded;
}

/**
 * What a failed engine import means. Only a missing engine file is "not
 * built". An OS error (EMFILE, EACCES, EIO, ...) is DRUM_IO with its errno,
 * also when Node's resolver hides it as ERR_MODULE_NOT_FOUND (it reports
 * any failed lookup as a missing module): then opening the engine file
 * again finds the errno. Anything else passes through.
 */
function loadFailure(e: unknown): unknown {
  if (e instanceof DrumError) return e;
  const engineFile = fileURLToPath(ENGINE_URL);
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return new DrumError('DRUM_IO', `cannot load the drum engine: ${message}`, { cause: e, file: (e as NodeJS.ErrnoException).path ?? engineFile });
  }
  if (code !== 'ERR_MODULE_NOT_FOUND') return e;
  const missing = /Cannot find module '([^']+)'/.exec(message)?.[1];
  if (missing !== undefined && existsSync(missing)) {
    return new DrumError('DRUM_IO', `cannot load the drum engine: ${missing} exists but could not be opened (out of file descriptors?)`, { cause: e, file: missing });
  }
  try {
    closeSync(openSync(engineFile, 'r'));
  } catch (probe) {
    const errno = (probe as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT') {
      return new DrumError('DRUM_INTERNAL', `the drum engine is not built (${engineFile}); run "npm run build"`, { cause: e, file: engineFile });
    }
    return new DrumError('DRUM_IO', `cannot load the drum engine: ${errno ?? String(probe)} (${message})`, { cause: probe, file: engineFile });
  }
  // The engine file is there: a module it imports is missing (an incomplete build or install).
  return new DrumError('DRUM_INTERNAL', `cannot load the drum engine: ${message}; run "npm install" and "npm run build"`, { cause: e, file: engineFile });
}

/** Opens a store, runs `fn`, and closes the store even when `fn` throws (the first error wins). */
export async function withDrum<T>(stateDir: string, opts: DrumOptions, fn: (d: DrumHandle) => Promise<T>): Promise<T> {
  const { Drum } = await loadEngine();
  const drum = await Drum.open(stateDir, opts);
  let result: T;
  try {
    result = await fn(drum);
  } catch (e) {
    await drum.close().catch(() => undefined);
    throw e;
  }
  await drum.close();
  return result;
}
