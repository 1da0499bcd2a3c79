// What `drum ingest --graph` adds to an ingest run (ingest.ts): the checks
// that refuse it (a keys-only store has no docIDs: DRUM_NEEDS_UPGRADE, as
// --revisit-after; --bloom lossy would drop rows' URLs unanswered; inputs
// other than TSV have no source column), the read loop's hooks (no line
// memo, the source column read before each chunk goes to the pool; stream
// inputs are read ahead to be refused before the run by graph-inputs.ts), the
// routing of a parsed chunk, and the commit's hooks (new sources go to the
// URL log and host counts but not to the unique files; every ordinal's
// docID comes back from the merge; the pairs are written before the
// outputs are made durable). The graph itself is graph-round.ts.
// REQUIRES: a Session opened for writing.

import { DrumError } from '../../../errors.js';
import { graphFormatError, refuseGraphInputs } from './graph-inputs.js';
import type { Reject } from '../../../input/types.js';
import type { RunCounters } from '../../../stats/counters.js';
import type { IngestRequest } from '../../api.js';
import type { CommitParams } from '../../url-seen/commit.js';
import { GraphRound, GRAPH_PAIR_BYTES } from '../../url-seen/graph-round.js';
import type { Session } from '../../session/session.js';
import { GraphSources } from '../../pipeline/graph-sources.js';
import type { ParsedChunk } from '../../pipeline/parse.js';
import type { ReadLoopParams } from '../../pipeline/read-loop.js';
import type { RunOutputs } from './run-outputs.js';

export class GraphRun {
  readonly round = new GraphRound();
  readonly sources: GraphSources;
  /** docIDs the store had handed out before the round being merged. */
  private docBase = 0;

  constructor(private readonly s: Session) {
    this.sources = new GraphSources(s.policy, s.opts.hostBits);
  }

  /** Refuses --graph where it cannot work, before the run starts (stream inputs: holdGraphStreams). */
  static async refuse(s: Session, req: IngestRequest): Promise<void> {
    if (!s.valued) throw new DrumError('DRUM_NEEDS_UPGRADE', 'graph (--graph) writes docIDs, which this store (keys only) lacks; run drum upgrade first');
    if (s.opts.bloom === 'lossy') throw new DrumError('DRUM_BAD_OPTION', "graph (--graph) cannot be combined with bloom 'lossy' (--bloom lossy): it drops URLs without a docID");
    await refuseGraphInputs(req, s.policy.maxLineBytes);
  }

  /** The read loop's hooks: no line memo, each chunk's sources read before it goes to the pool, TSV inputs only. */
  readHooks(): Pick<ReadLoopParams, 'memo' | 'onRead' | 'onInput'> {
    return {
      memo: false,
      onRead: (chunk) => this.sources.prepare(chunk),
      onInput: (info) => {
        if (info.format !== 'tsv') throw graphFormatError(info.path, info.format);
      },
    };
  }

  /** Routes a parsed chunk (its targets) with its rows' sources. */
  route(p: ParsedChunk, c: RunCounters, tooLong: Reject[]): void {
    this.round.route(p, this.sources.take(p), this.s.core, this.s.front.seedHostChecks, c, tooLong);
  }

  /** True when the round holds enough rows or keys to merge now. */
  get full(): boolean {
    return this.round.full;
  }

  /** The commit's hooks: per-URL dispatch (new sources stored, not emitted) and every ordinal's docID. */
  commitHooks(out: RunOutputs): Pick<CommitParams, 'emit' | 'sink' | 'valuesOut'> {
    this.docBase = this.s.store.body.docIDs ?? 0;
    const round = this.round;
    return {
      emit: (buf, start, end, ordinal) => (round.isSilent(ordinal) ? out.emitStored(buf, start, end) : out.emit(buf, start, end)),
      sink: undefined,
      valuesOut: round.out,
    };
  }

  /** After the round's merge, before its outputs are made durable: corrects the counts and writes the pairs. */
  finishRound(records: number, c: RunCounters, out: RunOutputs): void {
    const w = out.graph!;
    this.round.finish(records, this.docBase, c, (pair) => w.writeRecord(pair, 0, GRAPH_PAIR_BYTES));
  }
}
