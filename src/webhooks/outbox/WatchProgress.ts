/**
 * Tells a partition's watch that has fallen silent from one that has nothing to say. A KV watch
 * (an ordered push consumer) can stall without ending after a server is lost: its heartbeats
 * stop being checked while a reset waits on a stream leader that moved. The owner would then
 * never see deliveries another process queues in the partition. So the owner asks the stream's
 * leader, now and then, for the partition's first message after the last one the watch showed:
 * one found at a check and still not shown by the next check means the watch is behind.
 */
export class WatchProgress {
  /** The stream sequence of the last message the watch showed (or where it started). */
  #seen: number;
  /** The first partition message after `#seen` found at the previous check. */
  #pending: number | undefined;

  constructor(startedAfter: number) {
    this.#seen = startedAfter;
  }

  /** The watch showed the message at `revision`. */
  showed(revision: number): void {
    if (revision > this.#seen) this.#seen = revision;
  }

  /** Where the next check asks from: the sequence after the last message shown. */
  get askAfter(): number {
    return this.#seen;
  }

  /**
   * Judges one check: `firstAfter` is the partition's first message after `askAfter` as the
   * stream's leader answered it (undefined: none). Answers whether the watch is behind, i.e. a
   * message found at the previous check has still not been shown.
   */
  check(firstAfter: number | undefined): boolean {
    const behind = this.#pending !== undefined && this.#seen < this.#pending;
    this.#pending = firstAfter;
    return behind;
  }
}
