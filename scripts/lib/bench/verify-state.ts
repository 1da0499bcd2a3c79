// Bench-only: `drum verify --json` of a state directory a bench run left,
// summed up in one line. What a big run wrote must read back whole: a
// defect that corrupts state without failing the run shows here, not in
// the timings. Spawns the real bin/drum; writes nothing.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface StoreVerify {
  ok: boolean;
  /** "N files, K keys" when sound, else every problem as "file: message". */
  summary: string;
  ms: number;
}

/** Verifies `state` with the repository's bin/drum. */
export function verifyState(repoRoot: string, state: string): StoreVerify {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'drum'), 'verify', '--json', '--state', state], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = Date.now() - t0;
  try {
    const v = JSON.parse(r.stdout) as { ok: boolean; filesChecked: number; keysChecked: number; problems: { file: string; message: string }[] };
    const summary = v.ok ? `${v.filesChecked} files, ${v.keysChecked} keys` : v.problems.map((p) => `${p.file}: ${p.message}`).join('; ');
    return { ok: v.ok, summary, ms };
  } catch {
    return { ok: false, summary: `exit ${r.status}: ${r.stderr.trim().slice(0, 300)}`, ms };
  }
}

export function formatVerify(what: string, v: StoreVerify): string {
  return `${v.ok ? 'SOUND' : 'NOT SOUND'}  drum verify of ${what}: ${v.summary} (${(v.ms / 1000).toFixed(1)} s)`;
}
