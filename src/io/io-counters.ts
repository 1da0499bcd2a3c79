// What the file-system seam (fs.ts, DrumFs) counts for the report's IO
// statistics, and the hook through which tests inject faults before each
// mutating operation. Types and a constructor only; DrumFs does the counting.
// REQUIRES: nothing.

export interface IoCounters {
  bytesRead: number;
  bytesWritten: number;
  fileOpens: number;
  seeks: number;
  fsyncs: number;
}

export function newIoCounters(): IoCounters {
  return { bytesRead: 0, bytesWritten: 0, fileOpens: 0, seeks: 0, fsyncs: 0 };
}

/** Mutating operations a fault hook sees, in the order drum performs them. */
export type FsOp = 'write' | 'fsync' | 'rename' | 'unlink' | 'truncate' | 'open-write' | 'mkdir';

/** Called before each mutating operation; throw to inject a fault there. */
export type FaultHook = (op: FsOp, path: string) => void;
