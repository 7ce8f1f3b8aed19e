import type { ProviderProxyOptions, ProviderStyle } from "../../test/support/providerProxy.js";

/** A node or provider as the benchmark emulates it: its style and the caps that make it refuse. */
export interface ProviderPlan {
  readonly style: ProviderStyle;
  readonly caps: Omit<ProviderProxyOptions, "target" | "style">;
  /** What the caps make the client meet, for the report. */
  readonly meets: string;
}

/**
 * One plan per style, each with caps low enough that the devnet's chain 1 (634 blocks, 5,017 logs,
 * 2,400 of them in one block) meets them: a result cap above that one block (a single block over a
 * result cap cannot be split, and Infura does cap single blocks), batch caps under the service's 40,
 * rates under what 16 concurrent reads ask for. `anvil` passes everything: it is the proxy's own cost.
 */
export const PROVIDER_PLANS: ReadonlyArray<ProviderPlan> = [
  { style: "anvil", caps: {}, meets: "nothing (pass-through control)" },
  {
    style: "reth",
    caps: { maxLogsResults: 500 },
    meets: "500 logs per eth_getLogs (a single block is never capped)",
  },
  { style: "geth", caps: { maxBatch: 10 }, meets: "batches of 10 (its refusal names no limit)" },
  { style: "erigon", caps: { maxBatch: 25 }, meets: "batches of 25 (its refusal names the limit)" },
  {
    style: "infura",
    caps: { maxLogsResults: 2_500 },
    meets: "2,500 logs per eth_getLogs, a range suggested",
  },
  {
    style: "alchemy",
    caps: { rateLimit: { rps: 150, burst: 150 } },
    meets: "150 elements/s, burst 150, refused per batch element",
  },
  {
    style: "quicknode",
    caps: { maxLogsRange: 50, rateLimit: { rps: 100, burst: 100 } },
    meets: "50-block eth_getLogs ranges and 100 elements/s, burst 100",
  },
];

/**
 * The `set` changes that turn a running proxy into `plan`: every cap named, those the plan lacks as
 * undefined, so nothing of the previous plan stays behind.
 */
export const planChanges = (plan: ProviderPlan) => ({
  style: plan.style,
  maxLogsRange: undefined,
  maxLogsResults: undefined,
  maxBatch: undefined,
  rateLimit: undefined,
  ...plan.caps,
});
