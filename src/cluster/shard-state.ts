// What a shard keeps beside its drum store, under <state>/cluster/: which
// shard of how many the state serves, the next new-URL ordinal whose
// publication is not confirmed yet and the run ids of the shard's rounds a
// crash cut short whose directories are still to go (shard.json), and the
// outbox: the new URLs of the round being committed, written before the
// store commits them (outbox.txt). Both are written the LevelDB way (tmp,
// fsync, rename), through the store's file seam (src/io/fs.ts) like every
// other write of the state directory, so a fault or power-loss test sees
// them; they are read with node:fs.
// Does not talk to NATS, does not run rounds (shard.ts does) and removes no
// directory (leftover-rounds.ts does).
// REQUIRES: one writer per state directory (the drum store's lock).

import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { DrumError } from '../errors.js';
import { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';

export const SHARD_STATE_VERSION = 1;

export interface ShardMeta {
  version: number;
  shard: number;
  shards: number;
  /** Ordinal of the next new URL; every smaller ordinal's message has its PubAck. */
  next: number;
  /**
   * Run ids of this shard's rounds a crash cut short whose directories under
   * <state>/runs/ are still to be removed (leftover-rounds.ts); absent: none.
   */
  leftover?: string[];
}

export interface Outbox {
  /** Ordinal of the first URL. */
  base: number;
  urls: string[];
}

const OUTBOX_MAGIC = '#drum-outbox';
/** A run id as drum names them (no path separator, no dot: it names a directory under runs/). */
export const RUN_ID = /^[0-9A-Za-z][0-9A-Za-z-]*$/;

export class ShardState {
  readonly dir: string;
  private constructor(dir: string, public meta: ShardMeta, private readonly dfs: DrumFs) {
    this.dir = dir;
  }

  /**
   * Opens the shard's record in `stateDir`, creating it for (shard, shards)
   * if the store is fresh (`storeUrls` 0): load, then create.
   */
  static open(stateDir: string, shard: number, shards: number, storeUrls: number, dfs: DrumFs = new DrumFs()): ShardState {
    return ShardState.load(stateDir, shard, shards, storeUrls, dfs) ?? ShardState.create(stateDir, shard, shards, dfs);
  }

  /**
   * The shard's record in `stateDir`, or null when there is none and the
   * store is fresh (`storeUrls` 0): then nothing is written, so a start
   * refused later (a stream made for another shard count) leaves the state
   * as it found it. A state made for another shard, or a store that holds
   * URLs but was never a shard, is DRUM_BAD_OPTION. Its files are written
   * through `dfs` (the shard's seam; default, one without a fault hook).
   */
  static load(stateDir: string, shard: number, shards: number, storeUrls: number, dfs: DrumFs = new DrumFs()): ShardState | null {
    const dir = join(stateDir, 'cluster');
    const file = join(dir, 'shard.json');
    if (!fs.existsSync(file)) {
      if (storeUrls > 0) throw new DrumError('DRUM_BAD_OPTION', `${stateDir} holds ${storeUrls} URLs but was not created as a shard; use an empty state directory`);
      return null;
    }
    const meta = readMeta(file);
    if (meta.shard !== shard || meta.shards !== shards) {
      throw new DrumError('DRUM_BAD_OPTION', `${stateDir} serves shard ${meta.shard} of ${meta.shards}, not --shard ${shard} --shards ${shards}`);
    }
    return new ShardState(dir, meta, dfs);
  }

  /** Records a fresh store as (shard, shards) of the cluster, next ordinal 0. */
  static create(stateDir: string, shard: number, shards: number, dfs: DrumFs = new DrumFs()): ShardState {
    const dir = join(stateDir, 'cluster');
    dfs.mkdirp(dir, true);
    const meta = { version: SHARD_STATE_VERSION, shard, shards, next: 0 };
    writeDurably(dfs, join(dir, 'shard.json'), JSON.stringify(meta) + '\n');
    return new ShardState(dir, meta, dfs);
  }

  /** Records that every ordinal below `next` is published and acknowledged. */
  confirm(next: number): void {
    this.meta = { ...this.meta, next };
    this.saveMeta();
  }

  /** Records the run ids whose round directories are still to go (none: the field goes). */
  setLeftover(runIds: readonly string[]): void {
    const { leftover: _, ...rest } = this.meta;
    this.meta = runIds.length === 0 ? rest : { ...rest, leftover: [...runIds] };
    this.saveMeta();
  }

  /** Writes shard.json from `meta` (tmp, fsync, rename). */
  private saveMeta(): void {
    writeDurably(this.dfs, join(this.dir, 'shard.json'), JSON.stringify(this.meta) + '\n');
  }

  writeOutbox(o: Outbox): void {
    writeDurably(this.dfs, join(this.dir, 'outbox.txt'), `${OUTBOX_MAGIC} ${o.base} ${o.urls.length}\n${o.urls.map((u) => u + '\n').join('')}`);
  }

  /** The outbox, or null; a file whose URL count is not its header's is DRUM_CORRUPT_FILE. */
  readOutbox(): Outbox | null {
    const file = join(this.dir, 'outbox.txt');
    if (!fs.existsSync(file)) return null;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const head = /^#drum-outbox (\d+) (\d+)$/.exec(lines[0] ?? '');
    const urls = lines.slice(1, -1);
    if (head === null || Number(head[2]) !== urls.length || lines[lines.length - 1] !== '') {
      throw new DrumError('DRUM_CORRUPT_FILE', `${file}: bad outbox header or URL count`, { file });
    }
    return { base: Number(head[1]), urls };
  }

  dropOutbox(): void {
    this.dfs.unlink(join(this.dir, 'outbox.txt'));
  }
}

function readMeta(file: string): ShardMeta {
  let m: ShardMeta;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as ShardMeta;
  } catch (e) {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: not a shard record`, { file, cause: e });
  }
  const leftover = m.leftover === undefined || (Array.isArray(m.leftover) && m.leftover.every((id) => typeof id === 'string' && RUN_ID.test(id)));
  if (m.version !== SHARD_STATE_VERSION || !Number.isInteger(m.shard) || !Number.isInteger(m.shards) || !Number.isSafeInteger(m.next) || !leftover) {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: unknown version or bad fields`, { file });
  }
  return m;
}

/** Replaces `file` the LevelDB way (replace-file.ts): tmp, fsync, rename, fsync of its directory. */
function writeDurably(dfs: DrumFs, file: string, text: string): void {
  const buf = Buffer.from(text);
  replaceFile(dfs, file, (fd) => dfs.write(fd, buf, 0, buf.length, 0), { fsync: true, fsyncDir: dirname(file) });
}
