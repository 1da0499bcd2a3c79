// Closes a job's files one after another, each even when one before it
// failed (a full disk refuses a last flush), and hands back the first
// error instead of throwing it: the caller decides whether it outranks the
// error that stopped the job. Does not open or flush anything itself.

/** Runs every close in order (awaiting each); returns the first error, or undefined. */
export async function closeEach(closes: readonly (() => unknown)[]): Promise<unknown> {
  let first: unknown;
  for (const close of closes) {
    try {
      await close();
    } catch (e) {
      first ??= e;
    }
  }
  return first;
}
