// The CLI's plain-text layouts: a titled section of `label  value` rows
// and a table with a header row and right-aligned number columns, and a
// run's status with its damaged inputs. Pure string building; does not
// format numbers (format.ts does) or print.

import { fmtCount } from './format.js';

/** A run's status as the run report and `drum runs` say it: `complete (1 damaged input)` when inputs broke part-way. */
export function statusWithDamage(status: string, damaged: number): string {
  return damaged === 0 ? status : `${status} (${fmtCount(damaged, 'damaged input')})`;
}

/** Two-column section: a title line, then `label  value` rows with labels padded. */
export function section(title: string, rows: [string, string][]): string {
  const w = Math.max(...rows.map(([l]) => l.length));
  return `${title}\n${rows.map(([l, v]) => `  ${l.padEnd(w)}  ${v}`).join('\n')}\n`;
}

/** A table with a header row; numbers (columns in `right`) right-aligned. */
export function table(header: string[], rows: string[][], right: ReadonlySet<number> = new Set()): string {
  // A loop, not Math.max(...rows): a spread of a million rows (`drum hosts --top 1000000`) overflows the stack.
  const widths = header.map((h) => h.length);
  for (const r of rows) for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, (r[i] ?? '').length);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
