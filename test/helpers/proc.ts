// Test helper: processes as Linux's /proc shows them, for tests that kill a
// child drum started (a host-table fold's child process). Test-only; Linux
// only (callers skip elsewhere).

import * as fs from 'node:fs';

/** The pid of a child process of `pid` (Linux /proc), or null. */
export function childOf(pid: number): number | null {
  for (const d of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(d);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}
