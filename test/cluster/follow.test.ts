// drum follow against a real nats-server on 127.0.0.1: a cluster without
// DRUM_NEW is DRUM_NOT_FOUND (exit 15), not a wait; with a durable name a
// second follow prints only what came after the first, each URL once.
// Skips without nats-server (fails instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, spawnDrum, type NatsCluster } from '../helpers/nats.js';
import { announced, stopServing } from '../helpers/drum-new.js';

const HAVE = haveNats();

describe('drum follow', { skip: HAVE ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(1, (x) => (c = x));

  it('refuses a cluster that has no DRUM_NEW stream with DRUM_NOT_FOUND', async () => {
    const r = await drum(['follow', '--nats', c.urls, '--idle-exit', '1']);
    assert.equal(r.status, 15, r.stderr);
    assert.match(r.stderr, /DRUM_NOT_FOUND/);
  });

  it('with a durable name, prints on the next run only the URLs announced since', async () => {
    const dir = tempDir();
    const shard = spawnDrum(['serve', '--nats', c.urls, '--shard', '0', '--shards', '1', '--state', join(dir, 'shard'), '--max-delay', '0.1', '--no-fsync', '--workers', '0', '--quiet'], dir);
    const follow = (): Promise<string[]> => drum(['follow', '--nats', c.urls, '--durable', 'frontier', '--idle-exit', '1']).then((r) => {
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.split('\n').filter((u) => u !== '');
    });
    const publish = async (urls: string[]): Promise<void> => {
      const f = join(dir, `links-${urls.length}.txt`);
      writeFileSync(f, urls.join('\n') + '\n');
      assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', f])).status, 0);
    };
    const first = ['http://a.example/1', 'http://a.example/2'];
    await publish(first);
    await announced(c.urls, 2, { serving: [shard] });
    assert.deepEqual(await follow(), first);
    await publish(['http://a.example/2', 'http://b.example/3']);
    await announced(c.urls, 3, { serving: [shard] });
    assert.deepEqual(await follow(), ['http://b.example/3']);
    assert.equal(await stopServing(shard), 0, shard.stderr());
  });
});
