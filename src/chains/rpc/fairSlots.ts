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
   * Joins the line for a connection and waits, given the `restore` of the caller's
   * uninterruptibleMask: joining cannot be interrupted, the wait can. An interrupted waiter leaves
   * the line, or hands on the connection given to it just then. No mask of its own: ending one
   * checks for a pending interruption, which would fail the caller between taking a connection
   * and guarding its release.
   */
  #acquire(
    restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  ): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.tryTake()) return Effect.void;
      const waiter: Waiter = { granted: false, gate: Deferred.unsafeMake<void>(FiberId.none) };
      this.#line.push(waiter);
      return restore(Deferred.await(waiter.gate)).pipe(
        Effect.onInterrupt(() => Effect.sync(() => this.#leave(waiter))),
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
    return Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        this.#acquire(restore),
        Effect.ensuring(
          restore(effect),
          Effect.sync(() => this.release()),
        ),
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
