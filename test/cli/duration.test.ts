import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from '../../src/cli/options.js';

describe('--revisit-after durations', () => {
  it('parses durations in seconds, minutes, hours, days and weeks', () => {
    assert.deepEqual(['30d', '12h', '0s', '90m', '45', '2w', ' 7D '].map(parseDuration), [2592000, 43200, 0, 5400, 45, 1209600, 604800]);
    for (const bad of ['', '1.5d', '-1d', '3y', 'd', '10 days']) assert.equal(parseDuration(bad), null, bad);
  });

});
