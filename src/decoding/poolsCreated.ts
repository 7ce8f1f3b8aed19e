import type { BlockLike } from "./BlockLike.js";
import { decodeLogs } from "./decodeLog.js";
import type { DecodedEvent } from "./events/DecodedEvent.js";

/** Fields of every pool creation. */
interface PoolCreatedBase {
  readonly chain_id: number;
  readonly block_number: number;
  readonly tx_hash: string;
  readonly log_index: number;
  /** Factory (V2, V3) or PoolManager (V4) that emitted the event: identifies the protocol or fork. */
  readonly factory: string;
  /** Pair or pool address (V2, V3); pool id, 0x + 64 hex (V4). */
  readonly pool: string;
  /** Sorted token pair as the event gives it; in V4 the zero address is the native currency. */
  readonly token0: string;
  readonly token1: string;
}

/** A V2 pair from `PairCreated` (the fee is fixed per protocol, so the event has none). */
export interface V2PoolCreated extends PoolCreatedBase {
  readonly amm: "v2";
}

/** A V3 pool from `PoolCreated`. */
export interface V3PoolCreatedRecord extends PoolCreatedBase {
  readonly amm: "v3";
  /** Hundredths of a basis point. */
  readonly fee: number;
  readonly tick_spacing: number;
}

/** A V4 pool from `Initialize`. */
export interface V4PoolCreated extends PoolCreatedBase {
  readonly amm: "v4";
  /** Hundredths of a basis point, or 0x800000 (8388608) for a dynamic-fee pool. */
  readonly fee: number;
  readonly tick_spacing: number;
  /** Hooks contract; the zero address for none. */
  readonly hooks: string;
  /** Initial price, Q64.96, decimal. */
  readonly sqrt_price_x96: string;
  readonly tick: number;
}

/** An Algebra-style pool from the factory's `Pool` (fee and tick spacing are the pool's own, read when needed). */
export interface AlgebraPoolCreatedRecord extends PoolCreatedBase {
  readonly amm: "algebra";
}

/** A pool created in the block, tagged by `amm`. */
export type PoolCreated = V2PoolCreated | V3PoolCreatedRecord | V4PoolCreated | AlgebraPoolCreatedRecord;

const record = (
  event: DecodedEvent,
  head: Omit<PoolCreatedBase, "pool" | "token0" | "token1">,
): PoolCreated | undefined => {
  switch (event.kind) {
    case "v2.pairCreated":
      return { ...head, amm: "v2", pool: event.pair, token0: event.token0, token1: event.token1 };
    case "v3.poolCreated":
      return {
        ...head,
        amm: "v3",
        pool: event.pool,
        token0: event.token0,
        token1: event.token1,
        fee: event.fee,
        tick_spacing: event.tickSpacing,
      };
    case "v4.initialize":
      return {
        ...head,
        amm: "v4",
        pool: event.id,
        token0: event.currency0,
        token1: event.currency1,
        fee: event.fee,
        tick_spacing: event.tickSpacing,
        hooks: event.hooks,
        sqrt_price_x96: event.sqrtPriceX96.toString(),
        tick: event.tick,
      };
    case "algebra.poolCreated":
      return { ...head, amm: "algebra", pool: event.pool, token0: event.token0, token1: event.token1 };
    default:
      return undefined;
  }
};

/**
 * Pools created in a block, in log order: V2 `PairCreated`, V3 `PoolCreated`, V4 `Initialize` and Algebra `Pool`
 * from any emitter (forks share the events; mapping the factory to a protocol name is the indexer's
 * job). Pass `events` when the logs are already decoded.
 */
export const poolsCreated = (
  block: BlockLike,
  events: ReadonlyArray<DecodedEvent> = decodeLogs(block.logs),
): Array<PoolCreated> => {
  const out: Array<PoolCreated> = [];
  for (const event of events) {
    if (
      event.kind !== "v2.pairCreated" &&
      event.kind !== "v3.poolCreated" &&
      event.kind !== "v4.initialize" &&
      event.kind !== "algebra.poolCreated"
    )
      continue;
    const head = {
      chain_id: block.chain_id,
      block_number: block.number,
      tx_hash: event.transactionHash,
      log_index: event.logIndex,
      factory: event.address,
    };
    const pool = record(event, head);
    if (pool !== undefined) out.push(pool);
  }
  return out;
};
