// CRC-32 (zlib's, polynomial 0xedb88320) of two byte strings joined, from
// the CRC of each and the length of the second, without reading a byte:
// zlib's crc32_combine (multiplication modulo the polynomial by x^(8·len2)),
// which Node's zlib does not export. A block-framed store file's body CRC is
// thus carried from its blocks' CRCs, where it took a second CRC pass over
// every byte written. Does not compute the CRC of bytes (node:zlib's crc32
// does). REQUIRES: crc values as node:zlib's crc32 returns them.

/** The reflected polynomial. */
const POLY = 0xedb88320;

/** a × b modulo the polynomial (both reflected: bit 31 is x^0). */
function multModP(a: number, b: number): number {
  let p = 0;
  for (let m = 0x80000000; m !== 0 && (a & (2 * m - 1)) !== 0; m >>>= 1) {
    if ((a & m) !== 0) p ^= b;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] = x^(2^k) modulo the polynomial. */
const X2N = new Uint32Array(32);
X2N[0] = 0x40000000; // x^1
for (let k = 1; k < 32; k++) X2N[k] = multModP(X2N[k - 1]!, X2N[k - 1]!);

/** x^(n · 2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The last lengths' operators: a file's blocks have one or two lengths. */
const ops = new Map<number, number>();

/** CRC-32 of A followed by B, given crc1 = crc32(A), crc2 = crc32(B) and len2 = B's length in bytes. */
export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  let op = ops.get(len2);
  if (op === undefined) {
    if (ops.size >= 64) ops.clear();
    op = x2nModP(len2, 3);
    ops.set(len2, op);
  }
  return (multModP(op, crc1 >>> 0) ^ crc2) >>> 0;
}
