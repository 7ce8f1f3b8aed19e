import { Effect } from "effect";
import { toEventSelector } from "viem";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { getLogs, type LogFilter } from "../chains/rpc/getLogs.js";
import type { RpcLog } from "../chains/rpc/RpcTypes.js";
import type { FoundToken } from "./heldTokenOps.js";

const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TRANSFER_SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const TRANSFER_BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");

const topicOf = (wallet: string) => `0x${wallet.slice(2).toLowerCase().padStart(64, "0")}`;

/**
 * The four eth_getLogs filters that find every ERC-20, ERC-721 and ERC-1155 transfer from or to
 * a wallet without an address filter: ERC-20 and ERC-721 `Transfer` share one signature (with the
 * wallet as topic 1 or 2), ERC-1155 `TransferSingle`/`TransferBatch` put it in topic 2 or 3.
 * Indexed topics are what nodes serve fast (geth's log index, Erigon's bitmaps).
 */
export const walletTransferFilters = (wallet: string): ReadonlyArray<LogFilter> => {
  const me = topicOf(wallet);
  return [
    { topics: [TRANSFER, me] },
    { topics: [TRANSFER, null, me] },
    { topics: [[TRANSFER_SINGLE, TRANSFER_BATCH], null, me] },
    { topics: [[TRANSFER_SINGLE, TRANSFER_BATCH], null, null, me] },
  ];
};

/** What one stretch of a wallet's history showed. */
export interface ScannedStretch {
  readonly tokens: ReadonlyArray<FoundToken>;
  /** Token ids the wallet received from each of `nftContracts` (lower-case address -> ids). */
  readonly nftIds: ReadonlyMap<string, ReadonlyArray<bigint>>;
  readonly logs: number;
}

const standardOf = (log: RpcLog): FoundToken["standard"] | undefined => {
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 === TRANSFER)
    return log.topics.length === 4 ? "erc721" : log.topics.length === 3 ? "erc20" : undefined;
  if (topic0 === TRANSFER_SINGLE || topic0 === TRANSFER_BATCH) return "erc1155";
  return undefined;
};

/**
 * The wallet's token transfers in blocks `from`..`to`, through the chain's RPC layer (ranges it
 * tunes to the node, receipts for a block over a result cap): the tokens they moved, each with
 * the first block it was seen in, and the ids of NFTs of `nftContracts` the wallet received
 * (a position manager that cannot list an owner's NFTs, such as Uniswap V4's).
 */
export const scanWalletStretch = (
  rpc: ChainRpc,
  wallet: string,
  from: number,
  to: number,
  nftContracts: ReadonlySet<string>,
): Effect.Effect<ScannedStretch, unknown> =>
  Effect.gen(function* () {
    const answers = yield* Effect.forEach(
      walletTransferFilters(wallet),
      (filter) => getLogs(rpc, filter, from, to),
      { concurrency: "unbounded" },
    );
    const me = topicOf(wallet);
    const tokens = new Map<string, FoundToken>();
    const nftIds = new Map<string, Array<bigint>>();
    let count = 0;
    for (const logs of answers) {
      for (const log of logs) {
        count++;
        const standard = standardOf(log);
        if (standard === undefined) continue;
        const token = log.address.toLowerCase();
        const block = Number(log.blockNumber);
        const known = tokens.get(token);
        if (known === undefined || block < known.block) tokens.set(token, { token, standard, block });
        if (standard === "erc721" && nftContracts.has(token) && log.topics[2]?.toLowerCase() === me) {
          const ids = nftIds.get(token) ?? [];
          ids.push(BigInt(log.topics[3]!));
          nftIds.set(token, ids);
        }
      }
    }
    return { tokens: [...tokens.values()], nftIds, logs: count };
  });
