// Power loss of a shard's machine (`drum serve`) at a sample of the
// mutating file operations of its life (scripts/torture.ts --only
// power-serve tries every one): a shard served in this process answers
// three batches of links from a real nats-server, and loses power before
// operation #at; its state directory is rebuilt as a power loss leaves it
// (power-loss.ts: only what was fsynced; or torn from a seed,
// power-loss-torn.ts), a new shard on it answers the redelivered links and
// the rest, and DRUM_NEW must hold exactly the new URLs of one ingest of
// the same links, in order, each once, with ordinals 0, 1, 2, …, and the
// store must verify. The sample: operations spread over the life, and the
// four between a round's steps (outbox, commit, publish and confirm,
// outbox removal). A kill -9 (test/cluster/shard.test.ts) cannot show a
// missing fsync: the page cache outlives the process. Skips without
// nats-server (fails instead when CI is set).
// REQUIRES: nats-server on the PATH (test/helpers/nats-server.ts).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../helpers/tmp.js';
import { haveNats, INSTALL_HINT, NatsCluster } from '../../helpers/nats.js';
import { LinkLog } from './serve-nats.js';
import { roundSteps, serveBatches, serveLossAt, serveRef, type ServeRef } from './power-loss-serve.js';
import { runTrials } from './power-cut.js';

const HAVE = haveNats();

describe('power loss of a shard', { skip: HAVE ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  let c: NatsCluster | null = null;
  let log!: LinkLog;
  let ref!: ServeRef;
  const dir = tempDir();
  let batches!: string[];
  before(async () => {
    batches = serveBatches(dir);
    c = await NatsCluster.start(1, tempDir());
    log = await LinkLog.open(c.urls);
    ref = await serveRef(dir, log, batches);
  });
  after(async () => {
    await log?.close();
    c?.kill();
  });

  /** Each operation once with the kindest rebuild, or with each seed torn: the trials that went wrong. */
  function trials(ats: number[], seeds: (number | undefined)[]): Promise<{ bad: string[]; kept: number }> {
    return runTrials(ats, seeds, (at, seed) => serveLossAt(dir, log, batches, ref, at, seed));
  }

  it('publishes every new URL once, in order, when power is lost at any operation of its life', async () => {
    const ops = ref.trace.length;
    assert.ok(ops > 300, `${ops} operations`);
    const spread = Array.from({ length: 8 }, (_, i) => Math.floor(((i + 0.5) * ops) / 8));
    const steps = roundSteps(ref);
    assert.equal(steps.length, 4, 'a round renames its outbox, commits, confirms and removes the outbox');
    const { bad } = await trials([...new Set([...spread, ...steps])], [undefined]);
    assert.deepEqual(bad, []);
  });

  it('publishes every new URL once, in order, on a torn disk that keeps unsynced pages and names', async () => {
    const { bad, kept } = await trials(roundSteps(ref), [20261128, 20261129]);
    assert.ok(kept > 0, 'the torn rebuilds kept something no fsync made durable');
    assert.deepEqual(bad, []);
  });
});
