// One TSV link row, `source<TAB>target[<TAB>more]`: finds the target (the
// second field) and the source (the first), each trimmed of spaces, inside
// a window of bytes. An empty target is a reference to the source itself
// (RFC 3986 5.4.1 and WHATWG resolve "" against the base to the base): the
// target is then the source's bytes; a row with no target field, or with
// both fields empty, has no link. Carries the position of the next tab from row to row,
// so each window is scanned for tabs once. Does not split lines, detect the
// header row or copy bytes (split.ts does).
// REQUIRES: rows of one window read in order, reset() before each window.

const TAB = 9, SPACE = 32;

export class TsvRow {
  /** First tab at or after the scan point (the window's length: none left). */
  private tab = -1;
  /** The target field: w[u0, u1). */
  u0 = 0;
  u1 = 0;
  /** The source field: w[b0, b1). */
  b0 = 0;
  b1 = 0;

  reset(): void {
    this.tab = -1;
  }

  /** Reads row w[s, e); false when it has no target field, or an empty target and source (an 'empty' row). */
  read(w: Buffer, s: number, e: number): boolean {
    let tab = this.tab;
    if (tab < s) {
      tab = w.indexOf(TAB, s);
      if (tab < 0) tab = w.length;
    }
    if (tab >= e) {
      this.tab = tab;
      return false;
    }
    const t1 = tab;
    tab = w.indexOf(TAB, t1 + 1);
    if (tab < 0) tab = w.length;
    this.tab = tab;
    const t2 = tab < e ? tab : e;
    let u0 = t1 + 1, u1 = t2, b0 = s, b1 = t1;
    while (u0 < u1 && w[u0] === SPACE) u0++;
    while (u1 > u0 && w[u1 - 1] === SPACE) u1--;
    while (b0 < b1 && w[b0] === SPACE) b0++;
    while (b1 > b0 && w[b1 - 1] === SPACE) b1--;
    if (u0 === u1) {
      if (b0 === b1) return false;
      u0 = b0; // "" resolved against the source is the source
      u1 = b1;
    }
    this.u0 = u0;
    this.u1 = u1;
    this.b0 = b0;
    this.b1 = b1;
    return true;
  }
}
