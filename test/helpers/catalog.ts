// Test helper: opens the run catalog of a state directory, runs a function
// on it and closes it, even when the function throws. Opens without fsync
// unless the options say otherwise. Test-only; makes no assertion and keeps
// no model.
// REQUIRES: `state` is a state directory the test owns (tempDir), and `fn`
// does not close the catalog itself.

import { Catalog, type CatalogOpenOptions } from '../../src/catalog/catalog.js';

/** Opens the catalog of `state` with `{ sync: false, ...opts }`, runs `fn` on it and closes it; returns what `fn` returned. */
export async function withCatalog<T>(state: string, fn: (c: Catalog) => Promise<T>, opts: CatalogOpenOptions = {}): Promise<T> {
  const c = await Catalog.open(state, { sync: false, ...opts });
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}
