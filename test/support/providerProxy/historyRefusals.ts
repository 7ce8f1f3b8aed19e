import { hex, type Refusal } from "./jsonRpc.js";
import type { ProviderStyle } from "./settings.js";

/** Erigon 3's text for anything below its pruning point (erigontech/erigon#21965, v3.4.4). */
const erigonPruned = (requested: number, earliest: number): Refusal => ({
  kind: "pruned",
  error: {
    code: -32000,
    message: `old data not available due to pruning: requested block ${requested}, history is available from block ${earliest}`,
  },
});

/**
 * Logs or receipts below the pruning point.
 * - reth: 4444 "pruned history unavailable: requested X, earliest available Y"
 *   (crates/rpc/rpc-eth-types/src/error/mod.rs PrunedHistoryUnavailable).
 * - geth: 4444 "pruned history unavailable" (core/history/historymode.go PrunedHistoryError).
 * - Erigon: -32000 "old data not available due to pruning: …".
 * Providers and anvil answer as geth does.
 */
export const prunedHistory = (style: ProviderStyle, requested: number, earliest: number): Refusal => {
  if (style === "reth") {
    return {
      kind: "pruned",
      error: {
        code: 4444,
        message: `pruned history unavailable: requested ${requested}, earliest available ${earliest}`,
      },
    };
  }
  if (style === "erigon") return erigonPruned(requested, earliest);
  return { kind: "pruned", error: { code: 4444, message: "pruned history unavailable" } };
};

/**
 * State (eth_call, balances, code, storage, nonces) at a block below the pruning point.
 * - reth: -32603 "state at block #N is pruned" (crates/storage/errors/src/provider.rs
 *   StateAtBlockPruned, an internal error). N is one above the requested block: reth reads the state
 *   after block B from the change sets of B + 1 (providers/database/provider.rs `block_number += 1`).
 * - geth: -32000 "historical state <state root, hex without 0x> is not available"
 *   (core/state/database_history.go; the path scheme, geth's default).
 * - Erigon: -32000 "old data not available due to pruning: …".
 * Providers and anvil answer as geth does.
 */
export const prunedState = (
  style: ProviderStyle,
  requested: number,
  earliest: number,
  stateRoot: string,
): Refusal => {
  if (style === "reth") {
    return { kind: "pruned", error: { code: -32603, message: `state at block #${requested + 1} is pruned` } };
  }
  if (style === "erigon") return erigonPruned(requested, earliest);
  return {
    kind: "pruned",
    error: { code: -32000, message: `historical state ${stateRoot.replace(/^0x/, "")} is not available` },
  };
};

/**
 * State asked at a block the node does not have yet (it lags behind).
 * - reth: -32001 "block not found: 0x64" or "block not found: hash 0x…"
 *   (rpc-eth-types error HeaderNotFound with block_id_to_str).
 * - geth: -32000 "header not found", or "header for hash not found" (eth/api_backend.go).
 */
export const unknownBlock = (style: ProviderStyle, block: { number: number } | { hash: string }): Refusal => {
  if (style === "reth") {
    const id = "hash" in block ? `hash ${block.hash}` : hex(block.number);
    return { kind: "lag", error: { code: -32001, message: `block not found: ${id}` } };
  }
  return {
    kind: "lag",
    error: { code: -32000, message: "hash" in block ? "header for hash not found" : "header not found" },
  };
};
