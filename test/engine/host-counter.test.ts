import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HostCounter } from '../../src/engine/host-counter.js';

describe('HostCounter', () => {
  it('counts URLs per host[:port] the way a Map of host strings would', () => {
    const urls = [
      'http://a.example/x', 'http://a.example/y', 'https://b.example:8080/z?q', 'http://a.example',
      'http://c.example?x', 'http://b.example:8080/', 'http://c.example#f', 'http://a.example/z',
    ];
    const hc = new HostCounter();
    for (const u of urls) {
      const b = Buffer.from(`..${u}..`);
      hc.add(b, 2, b.length - 2);
    }
    assert.deepEqual(Object.fromEntries(hc.take()), { 'a.example': 4, 'b.example:8080': 2, 'c.example': 2 });
    assert.equal(hc.take().size, 0);
  });
});
