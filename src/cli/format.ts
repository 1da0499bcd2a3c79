// The one place the CLI turns numbers into text: counts with thousands
// separators, byte sizes in binary units, percentages, durations and compact
// rates. Every command's table, summary and progress line goes through these,
// so a figure reads the same everywhere. Pure functions; no I/O, no colours.
// Does not lay out tables (text-layout.ts does).

/**
 * A count: 1,234,567 (rounded to an integer), as `toLocaleString('en-US')`
 * writes it, without it: the first locale call loads ICU's number formats,
 * ~17 ms of every process that prints a report.
 */
export function fmtInt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const r = Math.round(n);
  const a = Math.abs(r);
  if (a >= 1e21) return r.toLocaleString('en-US'); // String() would write an exponent
  const d = String(a);
  let out = d.slice(0, ((d.length - 1) % 3) + 1);
  for (let i = out.length; i < d.length; i += 3) out += ',' + d.slice(i, i + 3);
  return (r < 0 || Object.is(r, -0) ? '-' : '') + out;
}

/** A byte size in binary units: 512 B, 1.50 KiB, 19.0 MiB. */
export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** A fraction in [0, 1] as a percentage: 23.6%. */
export function fmtPct(f: number): string {
  return Number.isFinite(f) ? `${(f * 100).toFixed(1)}%` : '-';
}

/** A duration: 850 ms, 3.83 s, 41.1 s, 2m05s, 1h02m. */
export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** A compact rate for a narrow line: 950, 12.3k, 4.56M. */
export function fmtRate(n: number): string {
  if (!Number.isFinite(n)) return '-';
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 2 : 1)}k`;
  return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)}M`;
}

/** `n` and a noun, singular or plural: "1 link", "2,000 links". */
export function fmtCount(n: number, noun: string, plural = `${noun}s`): string {
  return `${fmtInt(n)} ${n === 1 ? noun : plural}`;
}
