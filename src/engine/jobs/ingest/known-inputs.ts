// Which inputs of a request an earlier complete run already ingested, so the
// run may skip them, and a large input's whole-content identity once it has
// been read. An input is skipped only when its whole content is known to be
// identical to one ingested before, read the same way (format, WARC links,
// line limit, policy: InputRecord.read; a run that rejected every line as the
// wrong format does not keep the corrected rerun from reading it): an input up to the whole-hash limit is
// hashed whole before the run and matched by that SHA-256; a larger one is
// matched first by its sample (size, first and last MiB) and the match is
// confirmed by one sequential read (SHA-256 of every byte) before it is
// skipped. Every input that is read is hashed as it is read (read-loop.ts)
// and recorded with the hash of the bytes read, so one changed while read
// is never matched with what was there before or after. Damaged inputs and
// inputs never hashed whole never count, nor do runs before a forget (it may
// have made some of their URLs new again). Reads inputs and the records; writes nothing.
// REQUIRES: inputs from describeInputs (run-setup.ts).

import type { Catalog } from '../../../catalog/catalog.js';
import { inputIdentity } from '../../../input/identity.js';
import type { InputRecord, ManifestBody } from '../../../store/manifest.js';
import type { WholeHash } from '../../pipeline/read-loop.js';

type Recorded = { sha256: string | null; bytes: number; sample?: string; sampled?: boolean; damaged?: unknown; read?: string };

/**
 * True when an earlier complete run read whole, the same way (`read`: format, links, line limit, policy),
 * an input with this identity: `key` is a whole hash, or (bySample) a sample. A record without `read`
 * (an older drum) never matches: the input is read again, and its URLs are then duplicates.
 */
async function recorded(body: ManifestBody, catalog: Catalog | null, key: string, bytes: number, bySample: boolean, read: string | undefined): Promise<boolean> {
  const match = (x: Recorded): boolean =>
    x.bytes === bytes && x.damaged === undefined && x.sampled !== true && x.sha256 !== null && x.sha256 !== '' &&
    x.read !== undefined && x.read === read && (bySample ? x.sample === key : x.sha256 === key);
  // A forget made URLs new again: only runs after the last one vouch for an input (the catalog drops its index then too).
  let since = body.history.length;
  while (since > 0 && body.history[since - 1]!.kind !== 'forget') since--;
  if (body.history.slice(since).some((h) => h.status === 'complete' && h.inputs.some(match))) return true;
  const rec = catalog === null ? undefined : await catalog.findIngestedInput(key, bytes);
  return rec?.inputs.some(match) ?? false;
}

/**
 * Per input: true when an earlier complete run ingested exactly these bytes. A large input whose
 * sample matches one read before is read once to get its whole hash, which must then match; its
 * record keeps that hash (so it is not hashed again while read). Stdin and other streams are never known.
 */
export async function knownInputs(body: ManifestBody, catalog: Catalog | null, inputs: InputRecord[]): Promise<boolean[]> {
  const known: boolean[] = [];
  for (let k = 0; k < inputs.length; k++) {
    let i = inputs[k]!;
    if (i.path === '-' || i.sha256 === '') {
      known.push(false);
      continue;
    }
    if (i.sampled) {
      if (!(await recorded(body, catalog, i.sample!, i.bytes, true, i.read))) {
        known.push(false);
        continue;
      }
      const id = await inputIdentity(i.path, { method: 'full' });
      if (id.bytes !== i.bytes) {
        known.push(false);
        continue;
      }
      i = inputs[k] = { ...i, sha256: id.sha256, sampled: false };
    }
    known.push(await recorded(body, catalog, i.sha256, i.bytes, false, i.read));
  }
  return known;
}

/**
 * An input's record once read to its end: the SHA-256 of the bytes the read saw (`whole`), or,
 * when the read did not see every byte (a resumed run), of one more sequential read. So a run
 * records what it read, not what was there before: an input rewritten while read keeps the hash
 * of the bytes read, and one whose size changed while read is marked `sampled` and never counts
 * as ingested (`changed` is then true). Unchanged for streams and damaged inputs.
 */
export async function withWholeHash(i: InputRecord, whole: WholeHash | null): Promise<{ record: InputRecord; changed: boolean }> {
  if (i.damaged !== undefined || i.path === '-' || i.sha256 === '') return { record: i, changed: false };
  const id = whole ?? (await inputIdentity(i.path, { method: 'full' }));
  if (id.bytes !== i.bytes) return { record: { ...i, sampled: true }, changed: true };
  return { record: { ...i, sha256: id.sha256, sampled: false }, changed: !i.sampled && id.sha256 !== i.sha256 };
}
