// The profiles' agreement with their crawlers' own test cases
// (scripts/canon-agreement.ts over test/canonicalize/vectors/) stays at or
// above the figures docs/canonicalization.md states, suite by suite.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agreement, loadSuites } from '../../scripts/canon-agreement.js';

/** The documented figures: cases agreeing in scope (of in scope) and over all cases (of all). */
const DOCUMENTED: Record<string, { inScope: [number, number]; all: [number, number] }> = {
  'heritrix-canonicalization-rules': { inScope: [33, 33], all: [33, 33] },
  'ia-wayback': { inScope: [27, 27], all: [27, 35] },
  'nutch-basic-normalizer': { inScope: [78, 78], all: [78, 91] },
  'safebrowsing-google-examples': { inScope: [48, 48], all: [48, 54] },
  'w3lib-canonicalize-url': { inScope: [50, 50], all: [50, 55] },
};

describe('profile agreement with the peers\' test cases', () => {
  const results = agreement(loadSuites());

  it('measures every vector suite the docs list, and no other', () => {
    assert.deepEqual(results.map((r) => r.suite).sort(), Object.keys(DOCUMENTED).sort());
  });

  for (const [suite, want] of Object.entries(DOCUMENTED)) {
    it(`${suite}: at least ${want.inScope[0]} of ${want.inScope[1]} in-scope cases (>= 95 %) and ${want.all[0]} of ${want.all[1]} in all`, () => {
      const r = results.find((x) => x.suite === suite)!;
      assert.equal(r.inScope, want.inScope[1]);
      assert.equal(r.cases, want.all[1]);
      assert.ok(r.agreeInScope >= want.inScope[0], `${r.agreeInScope} agree: ${JSON.stringify(r.disagreements.filter((d) => d.inScope))}`);
      assert.ok(r.agreeAll >= want.all[0]);
      assert.ok(r.agreement >= 0.95);
    });
  }
});
