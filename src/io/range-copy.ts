// Copies URL-sized byte ranges into one fixed destination buffer four bytes
// a step, through DataViews (one unaligned load and store per word; V8
// compiles them to plain moves): 43 against 65 ns for a 60-byte URL with a
// byte loop, and no view object per call (Uint8Array.set on a subarray makes
// one, which was most of a merge's garbage). Keeps the DataView of the last
// source, so a caller copying many ranges of one chunk makes one view.
// Does not grow the destination. REQUIRES: the caller checked the room.

export class RangeCopier {
  private readonly dstView: DataView;
  private src: Uint8Array | null = null;
  private srcView: DataView | null = null;

  constructor(private readonly dst: Uint8Array) {
    this.dstView = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
  }

  /** Copies src[start, end) to the destination at `at`; returns the end offset there. */
  copy(src: Uint8Array, start: number, end: number, at: number): number {
    if (src !== this.src || this.srcView!.byteLength !== src.byteLength) {
      // A detached or recycled source (length 0 now) also gets a new view.
      this.src = src;
      this.srcView = new DataView(src.buffer, src.byteOffset, src.byteLength);
    }
    const sv = this.srcView!;
    const dv = this.dstView;
    const dst = this.dst;
    let i = start;
    const end4 = end - ((end - start) & 3);
    for (; i < end4; i += 4, at += 4) dv.setInt32(at, sv.getInt32(i, true), true);
    for (; i < end; i++) dst[at++] = src[i]!;
    return at;
  }
}
