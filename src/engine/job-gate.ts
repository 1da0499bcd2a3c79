// One job at a time per open Drum: hands out the session to a job, a live
// stream or checkUpdate (DRUM_CLOSED once closing, DRUM_BAD_OPTION while
// another holds the store), runs a job alone after forgetting any round an
// earlier one left behind, and lets close() wait for what is running. A
// reader (stats, urls, resolve) holds the store against other jobs but not
// against add(): the add() calls made while it reads queue behind it (the
// adder's pause, add-links.ts). Does not know what a job does, nor the run of
// add() calls (drum.ts ends or pauses it before a job).
// REQUIRES: the caller takes the session with use() and, before it returns,
// starts a job with run() or holds the store with hold().

import { DrumError } from '../errors.js';
import { dropRound, forgetRound } from './url-seen/commit.js';
import type { Session } from './session/session.js';

export class JobGate {
  /** Set by drain(): no job, stream or add() starts any more. */
  closing = false;
  /**
   * What holds the store: a job, stream or checkUpdate that refuses add() too ('alone'), or a reader
   * that add() calls wait behind ('reader'). add() calls themselves hold nothing: they share the adder's run.
   */
  private holder: 'alone' | 'reader' | null = null;
  /** Settles when the running job has (close() waits for it). */
  private current: Promise<unknown> = Promise.resolve();
  /** Settles when the live stream or checkUpdate has ended, and a destroyed one's cleanup is done. */
  private live: Promise<unknown> = Promise.resolve();

  /** The session, for a caller that may start now (`add`: an add() call, which a reader lets queue); throws when the store is closed or held. */
  use(session: Session | null, add = false): Session {
    if (session === null || this.closing) throw new DrumError('DRUM_CLOSED', 'this drum store is closed');
    if (this.holder === 'alone' || (this.holder === 'reader' && !add)) {
      throw new DrumError('DRUM_BAD_OPTION', 'one job at a time per open store (a job, stream or checkUpdate is running)');
    }
    return session;
  }

  /**
   * Runs `fn` alone: `before` first (the add() run's end, or for a `reader` the adder's pause, whose
   * release it returns and which is called once `fn` has settled), then any round an earlier job left is forgotten.
   */
  run<T>(s: Session, before: () => Promise<(() => void) | undefined>, fn: (s: Session) => Promise<T>, reader = false): Promise<T> {
    this.holder = reader ? 'reader' : 'alone';
    const p = (async () => {
      let release: (() => void) | undefined;
      try {
        release = await before();
        await abandonLeftovers(s);
        return await fn(s);
      } finally {
        this.holder = null;
        release?.();
      }
    })();
    this.current = p.catch(() => undefined);
    return p;
  }

  /** Holds the store for a live stream or checkUpdate until the returned function is called (close() waits). */
  hold(): () => void {
    this.holder = 'alone';
    let release = (): void => undefined;
    this.live = new Promise<void>((r) => (release = r));
    return () => {
      this.holder = null;
      release();
    };
  }

  /** Lets nothing new start, then waits for the running job and the live stream or checkUpdate. */
  async drain(): Promise<void> {
    this.closing = true;
    await this.current;
    await this.live;
  }
}

/**
 * Before a job: a round an earlier job left without cleaning up (every job
 * path forgets its own; a backstop) is forgotten. A read-only session only
 * ever checks, which teaches the tiers nothing, so it drops the round
 * without reloading them.
 */
async function abandonLeftovers(s: Session): Promise<void> {
  if (s.pending.total === 0 && s.aux.records === 0) return;
  if (s.opts.readOnly) dropRound(s);
  else await forgetRound(s);
}
