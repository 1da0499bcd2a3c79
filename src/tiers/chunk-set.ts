// The cheapest tier: marks the keys of one parsed chunk that repeat an
// earlier key of the same chunk. Runs in the parse worker over a small
// open-addressing table that stays in the core's cache (a chunk holds ~16k
// links; a third repeat a link of the same chunk on crawl data), so the main
// thread skips those links without probing the shared tiers. A repeat is a
// certain duplicate: its first occurrence precedes it in the same chunk.
// Knows nothing of other chunks. REQUIRES: keys are (hi, lo) fingerprints.

export class ChunkSet {
  private cap = 0;
  private keys = new Uint32Array(0);
  private stamp = new Uint32Array(0); // slot is in use iff stamp[slot] === gen
  private gen = 0;

  /**
   * Sets repeats[i] = 1 for each i whose key equals an earlier key in
   * keys[0, 2n); 0 otherwise. Returns the number of repeats.
   */
  mark(keys: Uint32Array, n: number, repeats: Uint8Array): number {
    if (2 * n > this.cap) this.resize(n);
    if (++this.gen === 0xffffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    const gen = this.gen;
    const mask = this.cap - 1;
    const tk = this.keys;
    const st = this.stamp;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const hi = keys[2 * i]!;
      const lo = keys[2 * i + 1]!;
      // lo is a full 32-bit URL hash already; fold hi in for keys that differ only there.
      let s = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
      let rep = 0;
      for (;;) {
        if (st[s] !== gen) {
          st[s] = gen;
          tk[2 * s] = hi;
          tk[2 * s + 1] = lo;
          break;
        }
        if (tk[2 * s] === hi && tk[2 * s + 1] === lo) {
          rep = 1;
          count++;
          break;
        }
        s = (s + 1) & mask;
      }
      repeats[i] = rep;
    }
    return count;
  }

  private resize(n: number): void {
    let cap = 1024;
    while (cap < 2 * n) cap *= 2;
    this.cap = cap;
    this.keys = new Uint32Array(2 * cap);
    this.stamp = new Uint32Array(cap);
    this.gen = 0;
  }
}
