// The bench's command line (scripts/bench.ts): its flags and their defaults,
// `--scale N` as shorthand for `--scale --scale-links N`, the checks on
// --skip and --links, and the figures derived from them (the level peer's
// link cap, the streamed scale run's slice, the timeout in ms). Parses and
// checks only: creates no directory and runs nothing.
// REQUIRES: argv without node and the script (process.argv.slice(2)).

import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';

/** The runs --skip may name. */
export const KNOWN = ['drum', 'drum-keys', 'drum-raw', 'sort', 'set', 'level', 'duckdb', 'small', 'batches', 'fixed', 'incremental', 'heritrix', 'resolve'];

/** Above this many links the scale run streams from the generator instead of a file. */
const STREAM_ABOVE = 100_000_000;

export interface BenchArgs {
  links: number;
  seed: number;
  scale: boolean;
  scaleLinks: number;
  smallLinks: number;
  /** Links per streamed slice of the scale run; 0: the scale run reads one file. */
  scaleSlice: number;
  /** A streamed slice is max(scaleSlice, this x the URLs already stored). */
  scaleGrowth: number;
  json: string | undefined;
  skip: Set<string>;
  tmp: string;
  /** The level peer runs on this many links at most (the rest is extrapolated). */
  levelMaxLinks: number;
  timeoutMs: number;
  keep: boolean;
  repeat: number;
  /** Document counts for the content-dedup rows, as given (e.g. "100000"). */
  content: string | undefined;
  resolveStore: number;
  resolveUrls: number;
}

/** `--scale N` (a number after --scale) means `--scale --scale-links N`. */
function scaleArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] === '--scale' && i + 1 < argv.length && Number.isFinite(Number(argv[i + 1]))) out.push('--scale-links', argv[++i]!);
  }
  return out;
}

/** Parses and checks the bench's flags; throws on an unknown flag, an unknown --skip run or a bad --links. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: scaleArgs(argv),
    options: {
      links: { type: 'string', default: '10000000' },
      'small-links': { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      scale: { type: 'boolean', default: false },
      'scale-links': { type: 'string', default: '100000000' },
      /** Stream the scale run in slices of this many links (default: only above 10^8 links, slices of 10^7). */
      'scale-slice': { type: 'string' },
      /** A streamed slice is max(--scale-slice, this x the URLs already stored); 0: every slice --scale-slice. */
      'scale-growth': { type: 'string', default: '0.3' },
      json: { type: 'string' },
      skip: { type: 'string', default: '' },
      tmp: { type: 'string', default: tmpdir() },
      'level-max-links': { type: 'string' },
      'timeout-s': { type: 'string', default: '3600' },
      keep: { type: 'boolean', default: false },
      repeat: { type: 'string', default: '1' },
      /** Also run the content-dedup bench (scripts/content-bench.ts) at these document counts, e.g. 100000. */
      content: { type: 'string' },
      /** The resolve row: URLs in its store, and URLs it resolves. */
      'resolve-store': { type: 'string', default: '10000000' },
      'resolve-urls': { type: 'string', default: '1000000' },
    },
  });
  const links = Number(values.links);
  const scaleLinks = Number(values['scale-links']);
  const skip = new Set(values.skip!.split(',').map((s) => s.trim()).filter(Boolean));
  for (const s of skip) if (!KNOWN.includes(s)) throw new Error(`--skip: unknown run ${s} (known: ${KNOWN.join(',')})`);
  if (!Number.isInteger(links) || links < 1) throw new Error('--links must be a positive integer');
  return {
    links, seed: Number(values.seed), scale: values.scale!, scaleLinks, smallLinks: Number(values['small-links']),
    scaleSlice: values['scale-slice'] ? Number(values['scale-slice']) : scaleLinks > STREAM_ABOVE ? 10_000_000 : 0,
    scaleGrowth: Number(values['scale-growth']), json: values.json, skip, tmp: values.tmp!,
    // LevelDB runs in full up to 10 M links; above that on a prefix, extrapolated.
    levelMaxLinks: values['level-max-links'] ? Number(values['level-max-links']) : Math.min(links, 10_000_000),
    timeoutMs: Number(values['timeout-s']) * 1000, keep: values.keep!, repeat: Math.max(1, Number(values.repeat) || 1),
    content: values.content, resolveStore: Number(values['resolve-store']),
    resolveUrls: Number(values['resolve-urls']),
  };
}
