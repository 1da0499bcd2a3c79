import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HostCounter, HOSTS_PER_PART } from '../../../src/engine/hosts/host-counter.js';

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
    assert.equal(hc.hosts, 3);
    assert.deepEqual(Object.fromEntries(hc.takeMap()), { 'a.example': 4, 'b.example:8080': 2, 'c.example': 2 });
    assert.equal(hc.takeMap().size, 0);
  });

  it('counts SURT keys by their reversed host[:port], without the closing parenthesis', () => {
    const hc = new HostCounter();
    for (const u of ['org,archive)/', 'org,archive)/a?b', 'com,example:8080)/x', 'org,archive)']) {
      const b = Buffer.from(u);
      hc.add(b, 0, b.length);
    }
    assert.deepEqual(Object.fromEntries(hc.takeMap()), { 'org,archive': 3, 'com,example:8080': 1 });
  });

  it('keeps every host apart across table growth (thousands of hosts)', () => {
    const hc = new HostCounter();
    for (let r = 0; r < 3; r++) {
      for (let i = 0; i < 20000; i++) {
        const b = Buffer.from(`http://h${i}.example/p${r}`);
        hc.add(b, 0, b.length);
      }
    }
    const m = hc.takeMap();
    assert.equal(m.size, 20000);
    for (const c of m.values()) assert.equal(c, 3);
  });
});

describe('HostCounter parts', () => {
  it('seals a part every HOSTS_PER_PART hosts and still adds up per host', () => {
    const hc = new HostCounter();
    const n = HOSTS_PER_PART + 10;
    for (let r = 0; r < 2; r++) {
      for (let i = 0; i < n; i++) {
        const b = Buffer.from(`http://p${i}.example/${r}`);
        hc.add(b, 0, b.length);
      }
    }
    const parts = hc.take();
    assert.ok(parts.count >= 2);
    parts.close();
    const hc2 = new HostCounter();
    for (let i = 0; i < n; i++) {
      const b = Buffer.from(`http://p${i}.example/x`);
      hc2.add(b, 0, b.length);
      hc2.add(b, 0, b.length);
    }
    const m = hc2.takeMap();
    assert.equal(m.size, n);
    for (const c of m.values()) assert.equal(c, 2);
  });
});
