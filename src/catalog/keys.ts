// Key encodings of the run catalog's sublevels, chosen so LevelDB's byte
// order gives the order queries need (round markers sort by round within a
// run). Pure string functions; no I/O.

/** Marker key of one applied host-count round of a run. */
export function roundKey(runId: string, round: number): string {
  return `${runId}|${round.toString().padStart(10, '0')}`;
}

/** Key of an ingested input's content: same bytes and same hash = same input. */
export function inputKey(sha256: string, bytes: number): string {
  return `${sha256.toLowerCase()}:${bytes}`;
}
