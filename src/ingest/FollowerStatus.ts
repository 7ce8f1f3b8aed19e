import type { ChainNodeStatus } from "../contracts/RpcStatus.js";

/** What operators see of one chain's follower (admin subject, /healthz detail, TUI). */
export interface FollowerStatus {
  chain_id: number;
  name: string;
  /** Latest block number the node reported. */
  head: number | null;
  /** Last block published to CHAIN_EVENTS. */
  processed: number | null;
  /** Hash of that block. */
  processed_hash?: string | null;
  /** Its parent's hash: an index one block behind must be on it, not on a block a reorg took away. */
  processed_parent_hash?: string | null;
  /** head - processed. */
  lag: number | null;
  /**
   * `starting` until the follower has checked where it resumes against the chain (a reorg while no
   * process followed it is found then), `history` while reading blocks from before the first start in
   * bulk, `live` after.
   */
  mode: "starting" | "history" | "live";
  /** Logs published per second over the last 10 seconds. */
  events_per_second: number;
  blocks_published: number;
  reorgs: number;
  rpc_errors: number;
  last_error: string | null;
  /**
   * CHAIN_EVENTS refused the last publish because the JetStream store is full: no block is
   * published (nor indexed, nor sent to webhooks) until there is room. Cleared by the next publish.
   */
  store_full?: boolean | undefined;
  updated_at: string;
  /** Internal native transfers: read (`on`), not configured (`off`), or configured but no endpoint serves traces. */
  traces?: "on" | "off" | "unavailable" | undefined;
  /**
   * First block of the index's unbroken history (the chain's start block, or the head at its first
   * start, or where reading resumed after pruned history): older activity is not in the index.
   */
  indexed_from?: number | undefined;
  /** Blocks of history not read because no endpoint keeps their logs any more. */
  history_skipped?: { from: number; to: number } | null | undefined;
  /**
   * The last run of live blocks not read because every endpoint had pruned them by the time the
   * follower got to them (it was stopped, or behind, for longer than the nodes' retention).
   */
  blocks_skipped?: { from: number; to: number } | undefined;
  /**
   * The last run of live blocks read without internal native transfers: the nodes no longer kept the
   * state to trace them when the follower got to them (their logs and receipts were read).
   */
  blocks_untraced?: { from: number; to: number } | undefined;
  /** The chain's RPC endpoints as this ingest process sees them. */
  node?: ChainNodeStatus | undefined;
}

export const initialStatus = (chainId: number, name: string): FollowerStatus => ({
  chain_id: chainId,
  name,
  head: null,
  processed: null,
  processed_hash: null,
  processed_parent_hash: null,
  lag: null,
  mode: "starting",
  events_per_second: 0,
  blocks_published: 0,
  reorgs: 0,
  rpc_errors: 0,
  last_error: null,
  updated_at: new Date().toISOString(),
});

/** Counts events in one-second buckets over a sliding 10-second window. */
export class RateMeter {
  readonly #buckets = new Array<number>(10).fill(0);
  #second = 0;

  add(count: number, now: number = Date.now()) {
    this.#advance(now);
    this.#buckets[this.#second % 10]! += count;
  }

  perSecond(now: number = Date.now()): number {
    this.#advance(now);
    return this.#buckets.reduce((a, b) => a + b, 0) / 10;
  }

  #advance(now: number) {
    const second = Math.floor(now / 1000);
    if (this.#second === 0) this.#second = second;
    while (this.#second < second) {
      this.#second++;
      this.#buckets[this.#second % 10] = 0;
      if (second - this.#second > 10) this.#second = second - 10;
    }
  }
}
