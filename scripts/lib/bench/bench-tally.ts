// The bench's results as they come in: its rows in the order they ran (each
// logged as it lands), a contender run R times down to its median row, and
// the link files each dataset's rows ran on. Holds results only: what runs a
// contender is bench-runners.ts, what judges the rows is bench-report.ts.

import { medianRow, type BenchRow } from './bench-report.js';
import type { GenMeta } from '../../gen-links.js';

export class BenchTally {
  readonly rows: BenchRow[] = [];
  /** Per dataset: the generator's meta, or where a file came from and its link count. */
  readonly datasets: Record<string, GenMeta | { links: number; source: string }> = {};

  constructor(readonly repeat: number, private readonly log: (s: string) => void) {}

  /** Adds a row and logs its outcome. */
  add(r: BenchRow): void {
    this.rows.push(r);
    this.log(`${r.label} [${r.dataset}]: ${r.status}${r.wallMs !== null ? ` ${(r.wallMs / 1000).toFixed(2)} s` : ''} ${r.note}`);
  }

  /** Runs a contender `repeat` times (calling `reset` between runs); keeps the median. */
  async rep(run: () => Promise<BenchRow>, reset?: () => void): Promise<BenchRow> {
    const runs: BenchRow[] = [];
    for (let i = 0; i < this.repeat; i++) {
      if (i > 0 && reset) reset();
      runs.push(await run());
    }
    return medianRow(runs);
  }
}
