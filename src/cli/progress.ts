// The one-line progress display on stderr during ingest/check: bytes of
// total, links/s, ETA and phase, redrawn in place at most ~5 times a second
// and cleared at the end. Draws nothing at all unless enabled AND the stream
// is a TTY (so logs and pipes never see control characters). Does not
// compute progress; it renders the engine's Progress events.

import type { Progress } from '../engine/api.js';
import { fmtBytes, fmtDuration, fmtInt, fmtPct, fmtRate } from './format.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(s: string): unknown;
}

/** Minimum time between redraws. */
export const REDRAW_MS = 200;

/** The progress line for one event (no control characters), cut to `width` columns. */
export function renderProgress(p: Progress, width = 100): string {
  const parts: string[] = [p.phase.padEnd(9)];
  if (p.bytesTotal !== null && p.bytesTotal > 0) {
    const frac = Math.min(1, p.bytesRead / p.bytesTotal);
    parts.push(`${fmtBytes(p.bytesRead)} / ${fmtBytes(p.bytesTotal)} ${fmtPct(frac)}`);
  } else {
    parts.push(fmtBytes(p.bytesRead));
  }
  parts.push(`${fmtInt(p.links)} links`);
  const secs = p.elapsedMs / 1000;
  if (secs > 0) parts.push(`${fmtRate(p.links / secs)} links/s`);
  if (p.bytesTotal !== null && p.bytesRead > 0 && p.bytesRead < p.bytesTotal && p.elapsedMs > 0) {
    parts.push(`ETA ${fmtDuration((p.elapsedMs * (p.bytesTotal - p.bytesRead)) / p.bytesRead)}`);
  }
  const line = parts.join('  ');
  return line.length > width ? line.slice(0, Math.max(0, width)) : line;
}

export class ProgressLine {
  private lastDraw = -Infinity;
  private drawn = false;
  private readonly active: boolean;

  constructor(
    private readonly stream: ProgressStream,
    enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.active = enabled && stream.isTTY === true;
  }

  /** Redraws when at least REDRAW_MS passed since the last draw; other events are dropped. */
  update(p: Progress): void {
    if (!this.active || p.phase === 'done') return;
    const t = this.now();
    if (t - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = t;
    const width = Math.max(20, (this.stream.columns ?? 80) - 1);
    this.stream.write(`\r${renderProgress(p, width)}\x1b[K`);
    this.drawn = true;
  }

  /** Erases the line so the report starts on a clean line. */
  done(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}
