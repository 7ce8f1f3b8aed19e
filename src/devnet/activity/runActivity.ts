import type { TransactionReceipt } from "viem";
import type { DevnetManifest } from "../DevnetManifest.js";
import { type ActivityContext, activityContext } from "./ActivityContext.js";
import { ACTIVITY_KINDS, type ActivityKind } from "./activityKinds.js";

/** How much activity to send. */
export interface ActivityOptions {
  /** Actions per second across all chains (each action is one to two transactions). */
  readonly ratePerSecond: number;
  /** How long to run, in seconds. */
  readonly durationSeconds: number;
  readonly log?: (line: string) => void;
}

/** Actions sent per kind, and how many failed. */
export interface ActivitySummary {
  readonly sent: Record<string, number>;
  readonly failed: number;
}

const KIND_ORDER = Object.keys(ACTIVITY_KINDS) as ActivityKind[];

/** Runs one action of `kind` on a chain and returns its receipts. */
export const runActivityAction = (ctx: ActivityContext, kind: ActivityKind): Promise<TransactionReceipt[]> =>
  ACTIVITY_KINDS[kind](ctx);

/**
 * Sends the activity mix to every chain of a running devnet: chains and kinds rotate round-robin, paced to
 * `ratePerSecond`. Failures are logged and counted, not fatal, so a long run survives a rejected action.
 */
export const runActivity = async (
  manifest: DevnetManifest,
  options: ActivityOptions,
): Promise<ActivitySummary> => {
  const contexts = manifest.chains.map(activityContext);
  const sent: Record<string, number> = {};
  let failed = 0;
  const interval = 1000 / Math.max(options.ratePerSecond, 0.01);
  const deadline = Date.now() + options.durationSeconds * 1000;
  for (let step = 0; Date.now() < deadline; step++) {
    const started = Date.now();
    const ctx = contexts[step % contexts.length]!;
    const kind = KIND_ORDER[Math.floor(step / contexts.length) % KIND_ORDER.length]!;
    try {
      const receipts = await runActivityAction(ctx, kind);
      sent[kind] = (sent[kind] ?? 0) + 1;
      options.log?.(`${ctx.chain.name} ${kind} ${receipts.map((r) => r.transactionHash).join(",")}`);
    } catch (error) {
      failed += 1;
      options.log?.(
        `${ctx.chain.name} ${kind} failed: ${error instanceof Error ? error.message.split("\n")[0] : error}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, interval - (Date.now() - started))));
  }
  return { sent, failed };
};
