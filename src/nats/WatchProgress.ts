import { Effect } from "effect";
import type { StreamTail } from "./streamTail.js";

/**
 * How often a process's followers of shared buckets (keys, teams, month totals, webhook records
 * and addresses, ingest status) ask the stream's leader whether their watch keeps up, ms: after a
 * nats-server is lost, a stalled watch is found and opened again within about two of these.
 */
export const WATCH_CHECK_MS = 5_000;

/**
 * Tells a watch that has fallen silent from one that has nothing to say. A KV watch (an ordered
 * consumer) can stall without ending after a nats-server is lost, seen in the cluster fault tests:
 * an outbox partition's owner then never saw deliveries another process queued, and the monthly
 * usage mirror stayed at its old totals. So the follower asks the stream's leader, now and then,
 * for the first message of the watched keys after the last one the watch showed: one found at a
 * check and still not shown by the next check means the watch is behind.
 */
export class WatchProgress {
  /** The stream sequence of the last message the watch showed (or where it started). */
  #seen: number;
  /** The first partition message after `#seen` found at the previous check. */
  #pending: number | undefined;
  /** Whether the watch showed any message since the previous check, older ones included. */
  #moved = false;

  constructor(startedAfter: number) {
    this.#seen = startedAfter;
  }

  /** The watch showed the message at `revision`. */
  showed(revision: number): void {
    this.#moved = true;
    if (revision > this.#seen) this.#seen = revision;
  }

  /** Where the next check asks from: the sequence after the last message shown. */
  get askAfter(): number {
    return this.#seen;
  }

  /**
   * Judges one check: `firstAfter` is the partition's first message after `askAfter` as the
   * stream's leader answered it (undefined: none). Answers whether the watch is behind, i.e. a
   * message found at the previous check has still not been shown, and the watch showed nothing
   * at all since then. A watch still replaying what the bucket held when it began (a million
   * addresses take about half a minute) shows only messages older than `askAfter` meanwhile:
   * it is slow, not stalled, and opening it again would only start the replay over.
   */
  check(firstAfter: number | undefined): boolean {
    const behind = this.#pending !== undefined && this.#seen < this.#pending && !this.#moved;
    this.#pending = firstAfter;
    this.#moved = false;
    return behind;
  }
}

/**
 * Checks `progress` every `everyMs` against `tail` for the keys matching `filter`, and completes
 * with the stream sequence of the unshown message once the watch is behind (never, while it keeps
 * up). A failed check (a server lost meanwhile) judges nothing; the next one asks again. So does a
 * check while `busy()`: a reader still working on the last message it was shown is not waiting on
 * the watch, however long that work takes.
 */
export const untilWatchFallsBehind = (
  progress: WatchProgress,
  tail: StreamTail,
  filter: string,
  everyMs: number,
  busy: () => boolean = () => false,
): Effect.Effect<number> =>
  Effect.gen(function* () {
    for (;;) {
      yield* Effect.sleep(everyMs);
      if (busy()) continue;
      const asked = progress.askAfter;
      const found = yield* Effect.either(Effect.tryPromise(() => tail.firstAfter(filter, asked)));
      if (found._tag === "Right" && progress.check(found.right)) return found.right ?? asked;
    }
  });
