// One power-loss trial's cut, shared by every power-loss sweep (ingest,
// upgrade and repair, drum content, a format 1 content store's conversion,
// a shard): a fault hook that loses power before operation #at of whatever
// runs under it, handing the operations before it to a PowerLossModel; then
// the disk that loss leaves, rebuilt in the world's place, checked and
// removed. Does not run the command or decide what the checks are (each
// sweep does).
// REQUIRES: the world holds what was on the disk before the command (the
// model takes it as durable when the cut is made).

import * as fs from 'node:fs';
import type { FsOp } from '../../../src/io/fs.js';
import { SimulatedCrash } from '../../helpers/crash.js';
import { PowerLossModel } from './power-loss.js';
import type { Tear } from './power-loss-torn.js';

export class PowerCut {
  readonly model: PowerLossModel;
  /** The operation the power was lost before, once it came. */
  where: { op: FsOp; path: string } | null = null;
  private n = 0;

  /**
   * Operation #at and every one after it fail: the power is off, so nothing
   * the command does while it fails (a cleanup, a close) reaches the disk.
   * `seen`: each operation that reached the disk, with its number, before
   * the model observes it.
   */
  constructor(
    readonly world: string,
    private readonly at: number,
    private readonly seen?: (op: FsOp, path: string, nth: number) => void,
  ) {
    this.model = new PowerLossModel(world);
  }

  /** The fault hook (DrumOptions.faultHook). */
  readonly hook = (op: FsOp, path: string): void => {
    const nth = this.n++;
    if (nth === this.at && this.where === null) this.where = { op, path };
    if (this.where !== null) throw new SimulatedCrash(`power lost before ${this.where.op} ${this.where.path}`);
    this.seen?.(op, path, nth);
    this.model.observe(op, path);
  };

  /** Where the power was lost, for a trial's outcome ('?' when the command ended first). */
  get place(): { op: FsOp | '?'; path: string } {
    return this.where ?? { op: '?', path: '' };
  }

  /**
   * Moves the world aside to `lost`, builds the disk the loss leaves in its
   * place (torn by `tear`, else the kindest), runs `check` on it unless
   * `problem` is already known, and removes both; returns the problem, ''
   * when none.
   */
  async rebuild(lost: string, tear: Tear | null, problem: string, check: () => Promise<string>, why: (e: unknown) => string = String): Promise<string> {
    fs.renameSync(this.world, lost);
    this.model.build(this.world, lost, tear);
    if (problem === '') problem = await check().catch((e: unknown) => `the checks threw: ${why(e)}`);
    fs.rmSync(this.world, { recursive: true, force: true });
    fs.rmSync(lost, { recursive: true, force: true });
    return problem;
  }
}

/** A trial outcome's tear: the seed and what it kept, or null for the kindest rebuild. */
export function tornOf(tear: Tear | null): { torn: null } | { torn: number; tally: Tear['tally'] } {
  return tear === null ? { torn: null } : { torn: tear.seed, tally: tear.tally };
}

/**
 * Runs `trial` once at each operation of `ats` (repeats run once) for each
 * of `seeds`: undefined rebuilds the kindest disk, a seed a torn one (seeded
 * with seed + at). Returns the outcomes that went wrong, as JSON, and the
 * unsynced pages and names the torn rebuilds kept.
 */
export async function runTrials(
  ats: readonly number[],
  seeds: readonly (number | undefined)[],
  trial: (at: number, seed: number | undefined) => Promise<{ ok: boolean; tally?: Tear['tally'] }>,
): Promise<{ bad: string[]; kept: number }> {
  const bad: string[] = [];
  let kept = 0;
  for (const at of new Set(ats)) {
    for (const seed of seeds) {
      const r = await trial(at, seed === undefined ? undefined : seed + at);
      if (!r.ok) bad.push(JSON.stringify(r));
      kept += r.tally === undefined ? 0 : r.tally.pagesKept + r.tally.namesKept;
    }
  }
  return { bad, kept };
}

