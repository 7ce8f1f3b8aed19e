import { Cause, Effect, type Scope } from "effect";
import { acquireLease, type HeldLease, LeaseLost, type LeaseTiming } from "./ChainLease.js";
import type { LeaseStore } from "./LeaseStore.js";

/** The lease key of a chain in the `chain_leases` bucket. */
export const chainLeaseKey = (chainId: number): string => String(chainId);

export interface LeadChainOptions {
  readonly store: LeaseStore;
  readonly chainId: number;
  /** This process's identity in the lease (unique per process). */
  readonly owner: string;
  readonly timing: LeaseTiming;
  /** Follows the chain while the lease is held; interrupted when it is lost. Fails only on what retrying cannot fix. */
  readonly follow: (lease: HeldLease) => Effect.Effect<never, { readonly message: string }, Scope.Scope>;
  /** Told whenever this process starts or stops following the chain. */
  readonly onLeading: (leading: boolean) => Effect.Effect<void>;
}

/**
 * Runs the chain's follower only while this process holds the chain's lease:
 * waits as a standby, follows once it holds the lease, and on losing it (taken
 * over after a pause, or not renewable in time) stops publishing at once and
 * becomes a standby again. So any number of ingest processes may serve the
 * same chain, one following and the others ready to take over. A follower
 * that fails for good hands the lease back (another process may fare better)
 * and this process stands by for a lease period before trying again.
 */
export const leadChain = (options: LeadChainOptions): Effect.Effect<never> =>
  Effect.forever(
    Effect.scoped(
      Effect.gen(function* () {
        const lease = yield* acquireLease(
          options.store,
          chainLeaseKey(options.chainId),
          options.owner,
          options.timing,
        );
        yield* Effect.logInfo(
          lease.checkpoint === undefined
            ? `chain ${options.chainId}: following it (first holder of its lease)`
            : `chain ${options.chainId}: following it from block ${lease.checkpoint.window.at(-1)?.number ?? lease.checkpoint.start - 1}, where its lease left off`,
        );
        yield* options.onLeading(true);
        // A defect (a bug, or a node's answer no code expected) fails the follower as any failure
        // does: uncaught, it would end this fiber and the chain would go unfollowed, with nothing
        // said above debug level, for the process's life.
        const following = options.follow(lease).pipe(
          Effect.tapDefect((cause) =>
            Effect.logError(
              `chain ${options.chainId}: the follower died of a defect\n${Cause.pretty(cause)}`,
            ),
          ),
          Effect.catchAllDefect((defect) =>
            Effect.fail({
              message: `defect: ${defect instanceof Error ? defect.message : String(defect)}`,
            }),
          ),
        );
        const ended = yield* Effect.raceFirst(Effect.flip(following), lease.lost).pipe(
          Effect.ensuring(options.onLeading(false)),
        );
        if (ended instanceof LeaseLost) {
          yield* Effect.logWarning(
            `chain ${options.chainId}: stopped following it (${ended.message}); standing by`,
          );
          return false;
        }
        yield* Effect.logError(
          `chain ${options.chainId}: following failed (${ended.message}); lease handed back`,
        );
        return true;
      }),
    ).pipe(Effect.flatMap((failed) => (failed ? Effect.sleep(options.timing.leaseMs) : Effect.void))),
  );
