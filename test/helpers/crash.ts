// Test helper: the simulated crash tests throw from the fault seam
// (DrumOptions.faultHook), and how to recognize it once it surfaces. The
// catalog turns whatever its writes throw into a DrumError with a stable
// code (level-errors.ts), so a crash inside a host-table write surfaces as
// the cause of a DRUM_IO, not as itself. Test-only.

/** Thrown by a fault hook to stop a run as a crash would, before the operation it was called for. */
export class SimulatedCrash extends Error {}

/** True when `e` or an error in its chain of causes is a SimulatedCrash: a predicate for assert.rejects. */
export function isCrash(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 8; x = (x as Error).cause, depth++) if (x instanceof SimulatedCrash) return true;
  return false;
}
