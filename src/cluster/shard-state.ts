// What a shard keeps beside its drum store, under <state>/cluster/: which
// shard of how many the state serves and the next new-URL ordinal whose
// publication is not confirmed yet (shard.json), and the outbox: the new
// URLs of the round being committed, written before the store commits them
// (outbox.txt). Both are written the LevelDB way (tmp, fsync, rename).
// Does not talk to NATS and does not run rounds (shard.ts does).
// REQUIRES: one writer per state directory (the drum store's lock).

import * as fs from 'node:fs';
import { mkdirpSync } from '../io/mkdirp.js';
import { join } from 'node:path';
import { DrumError, ioError } from '../errors.js';

export const SHARD_STATE_VERSION = 1;

export interface ShardMeta {
  version: number;
  shard: number;
  shards: number;
  /** Ordinal of the next new URL; every smaller ordinal's message has its PubAck. */
  next: number;
}

export interface Outbox {
  /** Ordinal of the first URL. */
  base: number;
  urls: string[];
}

const OUTBOX_MAGIC = '#drum-outbox';

export class ShardState {
  readonly dir: string;
  private constructor(dir: string, public meta: ShardMeta) {
    this.dir = dir;
  }

  /**
   * Opens the shard's record in `stateDir`, creating it for (shard, shards)
   * if the store is fresh (`storeUrls` 0). A state made for another shard,
   * or a store that holds URLs but was never a shard, is DRUM_BAD_OPTION.
   */
  static open(stateDir: string, shard: number, shards: number, storeUrls: number): ShardState {
    const dir = join(stateDir, 'cluster');
    const file = join(dir, 'shard.json');
    let meta: ShardMeta;
    if (fs.existsSync(file)) {
      meta = readMeta(file);
      if (meta.shard !== shard || meta.shards !== shards) {
        throw new DrumError('DRUM_BAD_OPTION', `${stateDir} serves shard ${meta.shard} of ${meta.shards}, not --shard ${shard} --shards ${shards}`);
      }
    } else {
      if (storeUrls > 0) throw new DrumError('DRUM_BAD_OPTION', `${stateDir} holds ${storeUrls} URLs but was not created as a shard; use an empty state directory`);
      mkdirpSync(dir);
      meta = { version: SHARD_STATE_VERSION, shard, shards, next: 0 };
      writeDurably(file, JSON.stringify(meta) + '\n');
    }
    return new ShardState(dir, meta);
  }

  /** Records that every ordinal below `next` is published and acknowledged. */
  confirm(next: number): void {
    this.meta = { ...this.meta, next };
    writeDurably(join(this.dir, 'shard.json'), JSON.stringify(this.meta) + '\n');
  }

  writeOutbox(o: Outbox): void {
    writeDurably(join(this.dir, 'outbox.txt'), `${OUTBOX_MAGIC} ${o.base} ${o.urls.length}\n${o.urls.map((u) => u + '\n').join('')}`);
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
    fs.rmSync(join(this.dir, 'outbox.txt'), { force: true });
  }
}

function readMeta(file: string): ShardMeta {
  let m: ShardMeta;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as ShardMeta;
  } catch (e) {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: not a shard record`, { file, cause: e });
  }
  if (m.version !== SHARD_STATE_VERSION || !Number.isInteger(m.shard) || !Number.isInteger(m.shards) || !Number.isSafeInteger(m.next)) {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: unknown version or bad fields`, { file });
  }
  return m;
}

/** Writes file.tmp, fsyncs it, renames it over file and fsyncs the directory. */
function writeDurably(file: string, text: string): void {
  const tmp = file + '.tmp';
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    const d = fs.openSync(join(file, '..'), 'r');
    try {
      fs.fsyncSync(d);
    } finally {
      fs.closeSync(d);
    }
  } catch (e) {
    throw ioError('writing', e, file);
  }
}
