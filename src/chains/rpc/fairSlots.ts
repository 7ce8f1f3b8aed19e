import { Deferred, Effect, Exit, FiberId } from "effect";

interface Waiter {
  granted: boolean;
  readonly gate: Deferred.Deferred<void>;
}

/**
 * An endpoint's connections, handed out first come, first served. Effect's Semaphore wakes a
 * waiter a task after a release, and a call that asks in between takes the connection, sending the
 * waiter to the back of the line: under steady load (a webhook's discovery scans beside ingest)
 * a call could wait out its whole budget. Here a release hands the connection straight to the
 * first in line, and a call finds one free only when nobody waits.
 */
export class FairSlots {
  #free: number;
  readonly #line: Array<Waiter> = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** Takes a connection if one is free and nobody waits for one. */
  tryTake(): boolean {
    if (this.#free === 0 || this.#line.length > 0) return false;
    this.#free--;
    return true;
  }

  /**
   * Joins the line for a connection and waits, `withinMs` at most, given the `restore` of the
   * caller's uninterruptibleMask: joining cannot be interrupted, the wait can. Answers whether it
   * got one. A waiter interrupted or out of time leaves the line, or hands on the connection given
   * to it just then. No mask of its own: ending one checks for a pending interruption, which would
   * fail the caller between taking a connection and guarding its release.
   */
  #acquire(
    restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
    withinMs: number,
  ): Effect.Effect<boolean> {
    return Effect.suspend(() => {
      if (this.tryTake()) return Effect.succeed(true);
      if (withinMs <= 0) return Effect.succeed(false);
      const waiter: Waiter = { granted: false, gate: Deferred.unsafeMake<void>(FiberId.none) };
      this.#line.push(waiter);
      const awaited = Deferred.await(waiter.gate);
      const wait = Number.isFinite(withinMs)
        ? Effect.timeoutTo(awaited, { duration: withinMs, onSuccess: () => true, onTimeout: () => false })
        : Effect.as(awaited, true);
      return restore(wait).pipe(
        Effect.onInterrupt(() => Effect.sync(() => this.#leave(waiter))),
        Effect.tap((got) => (got ? Effect.void : Effect.sync(() => this.#leave(waiter)))),
      );
    });
  }

  #leave(waiter: Waiter): void {
    const at = this.#line.indexOf(waiter);
    if (at >= 0) this.#line.splice(at, 1);
    else if (waiter.granted) this.release();
  }

  /** Gives a connection back: to the first in line, else to the free ones. */
  release(): void {
    const next = this.#line.shift();
    if (next === undefined) {
      this.#free++;
      return;
    }
    next.granted = true;
    Deferred.unsafeDone(next.gate, Exit.void);
  }

  /** Calls waiting in line (for tests and metrics). */
  get waiting(): number {
    return this.#line.length;
  }

  /** Runs `effect` holding a connection, waiting in line for one. */
  withSlot<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    return this.withSlotWithin(Number.POSITIVE_INFINITY, effect, () => {
      throw new Error("a wait without a limit ran out");
    });
  }

  /**
   * Runs `effect` holding a connection, waiting in line for one `withinMs` at most; out of time,
   * answers `onTimeout()` instead, holding none.
   */
  withSlotWithin<A, E, R>(
    withinMs: number,
    effect: Effect.Effect<A, E, R>,
    onTimeout: () => A,
  ): Effect.Effect<A, E, R> {
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(this.#acquire(restore, withinMs), (got) =>
        got
          ? Effect.ensuring(
              restore(effect),
              Effect.sync(() => this.release()),
            )
          : Effect.sync(onTimeout),
      ),
    );
  }

  /** Runs `effect` holding a connection if one is free now (and nobody waits); none otherwise. */
  ifFree<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | undefined, E, R> {
    return Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() =>
        this.tryTake()
          ? Effect.ensuring(
              restore(effect),
              Effect.sync(() => this.release()),
            )
          : Effect.succeed(undefined),
      ),
    );
  }
}
