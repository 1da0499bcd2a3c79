// Key encodings of the run catalog's sublevels, chosen so LevelDB's byte
// order gives the order queries need: by-count keys sort most-first, round
// markers sort by round. Pure string functions; no I/O.

/** Counts are below 2^53, so 14 hex digits hold MAX_SAFE_INTEGER - count. */
const WIDTH = 14;
const MAX = Number.MAX_SAFE_INTEGER;

/** By-count index key: ascending key order = descending count, then host name ascending. */
export function countKey(count: number, host: string): string {
  return (MAX - count).toString(16).padStart(WIDTH, '0') + '|' + host;
}

export function parseCountKey(key: string): { host: string; uniqueUrls: number } {
  return { host: key.slice(WIDTH + 1), uniqueUrls: MAX - parseInt(key.slice(0, WIDTH), 16) };
}

/** Marker key of one applied host-count round of a run. */
export function roundKey(runId: string, round: number): string {
  return `${runId}|${round.toString().padStart(10, '0')}`;
}

/** Key of an ingested input's content: same bytes and same hash = same input. */
export function inputKey(sha256: string, bytes: number): string {
  return `${sha256.toLowerCase()}:${bytes}`;
}
