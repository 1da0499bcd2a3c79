// Moving ArrayBuffer memory to a new owner without copying it: the old
// buffer (and every view of it) is left detached, length 0, so a stale view
// reads nothing rather than another owner's bytes. Used by the slab pool,
// the splitter's lent index arrays and the file reader's buffer ring.
// Does not allocate new memory.

/** Returns a new ArrayBuffer over `buf`'s bytes; `buf` and its views are now detached (length 0). */
export function moveBuffer(buf: ArrayBuffer): ArrayBuffer {
  return structuredClone(buf, { transfer: [buf] });
}
