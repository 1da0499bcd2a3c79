// `drum forget [--host HOST…] [urls-file|-]`: removes URLs from an existing
// store (Drum.forget) and prints what it did — asked, forgotten, not stored,
// repeats, rejects with their line numbers — as a summary or one JSON object.
// Exit status 0, or that of an input that ended in an error (like ingest);
// DRUM_NOT_FOUND when there is no store (a forget never creates one);
// DRUM_NEEDS_UPGRADE for --host on a store without per-URL host checks.
// Does not parse argv (main.ts) or canonicalize (the engine does, with the
// store's recorded policy: forget takes no policy options).

import { DrumError } from '../../errors.js';
import type { ForgetReport } from '../../engine/api.js';
import { readManifest } from '../../store/manifest.js';
import type { CliIo } from '../command-io.js';
import { inputErrorStatus } from '../command-io.js';
import { refuseInputsInState } from '../../engine/jobs/ingest/run-setup.js';
import { withDrum } from '../engine.js';
import { fmtCount, fmtInt } from '../format.js';
import { drumOptionsFrom, inputsFrom, outDirFrom, readOptionsFrom, stateDirFrom, type RawOptions } from '../options.js';

export async function forgetCommand(inputs: string[], raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  if (readManifest(state) === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${state}: nothing to forget`, { file: state });
  const hosts = raw.host ?? [];
  // No list and no host: the list comes from stdin, as check reads it.
  const files = inputs.length === 0 && hosts.length === 0 ? ['-'] : inputs;
  const opts = drumOptionsFrom(raw, { cwd: io.cwd });
  refuseInputsInState(state, inputsFrom(files, io.cwd));
  const outDir = outDirFrom(raw.out, 'forget', io.cwd);
  const r = await withDrum(state, opts, (d) => d.forget({
    inputs: files.length === 0 ? [] : inputsFrom(files, io.cwd), hosts, ...readOptionsFrom(raw), ...(outDir === undefined ? {} : { outDir }),
  }));
  if (raw.json) io.stdout.write(JSON.stringify(r) + '\n');
  else if (!raw.quiet) io.stdout.write(formatForget(r, files));
  return inputErrorStatus(r.inputErrors.map((e, input) => ({ ...e, input, offset: 0 })), io);
}

/** The summary: counts first, then the first rejects by line, then where the files are. */
export function formatForget(r: ForgetReport, inputs: readonly string[] = []): string {
  const byHost = (r.hosts ?? []).reduce((a, h) => a + h.forgotten, 0);
  const listed = `${fmtInt(r.asked)} URLs asked (${fmtInt(r.notStored)} not stored, ${fmtInt(r.repeats)} repeats)`;
  const lines = [
    r.hosts === undefined
      ? `forgot ${fmtInt(r.forgotten)} of ${listed}; ${fmtCount(r.rejectedLines, 'line')} rejected`
      : `forgot ${fmtCount(r.forgotten, 'URL')}: ${fmtInt(byHost)} by host, ${fmtInt(r.forgotten - byHost)} of ${listed}; ${fmtCount(r.rejectedLines, 'line')} rejected`,
    `store now holds ${fmtCount(r.storeUrls, 'URL')}`,
  ];
  for (const h of r.hosts ?? []) {
    const kept = h.unknownHost === 0 ? '' : `; ${fmtInt(h.unknownHost)} of its key range kept: stored before the store had values, their host is unknown (forget them by list)`;
    lines.push(`  ${h.host}: ${fmtInt(h.forgotten)} forgotten${kept}`);
  }
  const inputName = (i: number): string => (inputs[i] === undefined ? `input ${i}` : inputs[i] === '-' ? 'stdin' : inputs[i]!);
  for (const x of r.rejects.slice(0, 10)) lines.push(`  rejected: ${inputName(x.input)} line ${fmtInt(x.line)}: ${x.reason}`);
  if (r.rejectedLines > 10) lines.push(`  ... ${fmtInt(r.rejectedLines - 10)} more in rejects.tsv`);
  lines.push(`forgotten URLs: ${r.outDir}/forgotten.txt; run ${r.runId}`);
  return lines.join('\n') + '\n';
}
