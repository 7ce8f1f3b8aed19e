import { Effect } from "effect";

/** A key's permit and how many fibers hold it or wait for it (the entry goes when none do). */
interface Turn {
  readonly permit: Effect.Semaphore;
  users: number;
}

/**
 * Runs effects for the same key one at a time, in the order they asked, and
 * effects for different keys freely. Keys nobody is using take no memory.
 */
export const makeKeyedTurns = () => {
  const turns = new Map<string, Turn>();
  return <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      let turn = turns.get(key);
      if (turn === undefined) {
        turn = { permit: Effect.unsafeMakeSemaphore(1), users: 0 };
        turns.set(key, turn);
      }
      const mine = turn;
      mine.users++;
      return mine.permit
        .withPermits(1)(effect)
        .pipe(
          Effect.ensuring(
            Effect.sync(() => {
              mine.users--;
              if (mine.users === 0) turns.delete(key);
            }),
          ),
        );
    });
};

/** What makeKeyedTurns returns. */
export type KeyedTurns = ReturnType<typeof makeKeyedTurns>;
