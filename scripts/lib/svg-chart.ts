// Bench-only: draws small, self-contained SVG charts as strings — panels of
// horizontal bars (one panel per group, each with its own scale) and a
// column chart of a series. No dependencies, no fonts to load, no scripts in
// the SVG; the charts read on GitHub's light and dark backgrounds alike
// (a white card). Does not read files or know the bench's JSON
// (scripts/charts.ts maps that onto these shapes).

export interface Bar {
  label: string;
  value: number;
  /** Drawn in the highlight colour (drum's own bars). */
  highlight?: boolean;
  /** Text after the bar; default: the value with `unit`. */
  text?: string;
}

export interface Panel {
  title: string;
  bars: Bar[];
  /** A dashed vertical marker, e.g. a memory budget. */
  marker?: { value: number; label: string };
}

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
const INK = '#24292f';
const MUTED = '#57606a';
const DRUM = '#0969da';
const PEER = '#8c959f';
const LIGHT = '#80b3f0';
const WIDTH = 760;

/** Escapes text for an SVG text node or attribute. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A number with thousands separators and at most `digits` decimals. */
export function num(x: number, digits = 2): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: digits });
}

function svgOpen(height: number, title: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ${FONT} font-size="13" role="img" aria-label="${esc(title)}">\n` +
    `<title>${esc(title)}</title>\n<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>\n` +
    `<text x="16" y="26" font-size="16" font-weight="600" fill="${INK}">${esc(title)}</text>\n`;
}

/**
 * Panels of horizontal bars stacked vertically: each panel scales to its own
 * largest value (or marker), labels on the left, the value after each bar.
 */
export function barPanels(title: string, unit: string, panels: Panel[], note = ''): string {
  const labelW = 250;
  const barMax = WIDTH - labelW - 150;
  const rowH = 24;
  let y = 50;
  let body = '';
  for (const p of panels) {
    body += `<text x="16" y="${y + 4}" font-weight="600" fill="${INK}">${esc(p.title)}</text>\n`;
    y += 14;
    const max = Math.max(...p.bars.map((b) => b.value), p.marker?.value ?? 0, Number.MIN_VALUE);
    const top = y;
    for (const b of p.bars) {
      const w = Math.max(1, (b.value / max) * barMax);
      const fill = b.highlight ? DRUM : PEER;
      body += `<text x="${labelW - 8}" y="${y + 16}" text-anchor="end" fill="${INK}">${esc(b.label)}</text>\n`;
      body += `<rect x="${labelW}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowH - 8}" rx="2" fill="${fill}"/>\n`;
      body += `<text x="${(labelW + w + 6).toFixed(1)}" y="${y + 16}" fill="${b.highlight ? DRUM : MUTED}"${b.highlight ? ' font-weight="600"' : ''}>${esc(b.text ?? `${num(b.value)} ${unit}`)}</text>\n`;
      y += rowH;
    }
    if (p.marker) {
      const x = labelW + (p.marker.value / max) * barMax;
      body += `<line x1="${x.toFixed(1)}" y1="${top}" x2="${x.toFixed(1)}" y2="${y + 2}" stroke="#cf222e" stroke-dasharray="4 3"/>\n`;
      body += `<text x="${(x + 4).toFixed(1)}" y="${y + 14}" font-size="11" fill="#cf222e">${esc(p.marker.label)}</text>\n`;
      y += 14;
    }
    y += 18;
  }
  for (const line of note ? note.split('\n') : []) {
    body += `<text x="16" y="${y + 4}" font-size="11" fill="${MUTED}">${esc(line)}</text>\n`;
    y += 14;
  }
  return svgOpen(y + 8, title) + body + '</svg>\n';
}

export interface Column {
  /** Under the column, first line. */
  label: string;
  /** Under the column, second line (e.g. the store size before). */
  sublabel?: string;
  value: number;
  /** A second series beside the first (drawn lighter), e.g. CPU time next to wall time. */
  value2?: number;
}

/**
 * A column chart of one or two series (e.g. wall and CPU time per batch), y
 * axis from 0 with 4 grid lines; `names` labels the series in a legend.
 */
/** A horizontal line across a column chart, e.g. a budget. */
export interface Limit {
  value: number;
  label: string;
}

/** Above this many columns, values are not printed on them and every k-th column alone is labelled. */
const DENSE_COLUMNS = 24;

export function columnChart(title: string, yUnit: string, cols: Column[], note = '', names: [string, string?] = [''], limit?: Limit): string {
  const left = 64;
  const right = 16;
  const top = 50;
  const plotH = 220;
  const max = niceMax(Math.max(...cols.map((c) => Math.max(c.value, c.value2 ?? 0)), limit?.value ?? 0, Number.MIN_VALUE));
  const two = cols.some((c) => c.value2 !== undefined);
  const step = (WIDTH - left - right) / Math.max(1, cols.length);
  const dense = cols.length > DENSE_COLUMNS;
  const every = dense ? Math.ceil(cols.length / 12) : 1;
  let body = '';
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const y = top + plotH - (v / max) * plotH;
    body += `<line x1="${left}" y1="${y.toFixed(1)}" x2="${WIDTH - right}" y2="${y.toFixed(1)}" stroke="#d0d7de"/>\n`;
    body += `<text x="${left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="${MUTED}">${esc(num(v))}</text>\n`;
  }
  body += `<text x="16" y="${top + plotH / 2}" font-size="11" fill="${MUTED}" transform="rotate(-90 16 ${top + plotH / 2})" text-anchor="middle">${esc(yUnit)}</text>\n`;
  const column = (x: number, w: number, v: number, fill: string): string => {
    const h = (v / max) * plotH;
    const y = top + plotH - h;
    const bar = `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${Math.max(1, h).toFixed(1)}" rx="2" fill="${fill}"/>\n`;
    return dense ? bar : bar + `<text x="${(x + w / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle" font-size="10" fill="${INK}">${esc(num(v, 1))}</text>\n`;
  };
  cols.forEach((c, i) => {
    const x = left + i * step + step * 0.12;
    const w = step * 0.76;
    const mid = (x + w / 2).toFixed(1);
    if (two) {
      body += column(x, w / 2 - 1, c.value, DRUM);
      if (c.value2 !== undefined) body += column(x + w / 2 + 1, w / 2 - 1, c.value2, LIGHT);
    } else body += column(x, w, c.value, DRUM);
    if (i % every !== 0 && i !== cols.length - 1) return;
    body += `<text x="${mid}" y="${top + plotH + 16}" text-anchor="middle" font-size="11" fill="${INK}">${esc(c.label)}</text>\n`;
    if (c.sublabel) body += `<text x="${mid}" y="${top + plotH + 30}" text-anchor="middle" font-size="10" fill="${MUTED}">${esc(c.sublabel)}</text>\n`;
  });
  if (limit !== undefined) {
    const y = (top + plotH - (limit.value / max) * plotH).toFixed(1);
    body += `<line x1="${left}" y1="${y}" x2="${WIDTH - right}" y2="${y}" stroke="#cf222e" stroke-dasharray="4 3"/>\n`;
    // Named in the legend row above the plot, where no column reaches.
    const lx = WIDTH - right - 230;
    body += `<line x1="${lx}" y1="41" x2="${lx + 18}" y2="41" stroke="#cf222e" stroke-dasharray="4 3"/>\n`;
    body += `<text x="${lx + 24}" y="45" font-size="11" fill="#cf222e">${esc(limit.label)}</text>\n`;
  }
  if (two) {
    const lx = WIDTH - right - 230;
    body += `<rect x="${lx}" y="36" width="10" height="10" fill="${DRUM}"/><text x="${lx + 14}" y="45" font-size="11" fill="${INK}">${esc(names[0])}</text>\n`;
    body += `<rect x="${lx + 110}" y="36" width="10" height="10" fill="${LIGHT}"/><text x="${lx + 124}" y="45" font-size="11" fill="${INK}">${esc(names[1] ?? '')}</text>\n`;
  }
  let y = top + plotH + 48;
  for (const line of note ? note.split('\n') : []) {
    body += `<text x="16" y="${y}" font-size="11" fill="${MUTED}">${esc(line)}</text>\n`;
    y += 14;
  }
  return svgOpen(y, title) + body + '</svg>\n';
}

/** 1, 2 or 5 times a power of ten, at least `x`: a round top for an axis. */
export function niceMax(x: number): number {
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}
