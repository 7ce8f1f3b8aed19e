import { Effect } from "effect";
import { toEventSelector } from "viem";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import { getLogs, type LogFilter } from "../chains/rpc/getLogs.js";
import type { RpcLog } from "../chains/rpc/RpcTypes.js";
import type { FoundToken } from "./heldTokenOps.js";

const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TRANSFER_SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const TRANSFER_BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");

const topicOf = (wallet: string) => `0x${wallet.slice(2).toLowerCase().padStart(64, "0")}`;

/**
 * The four eth_getLogs filters that find every ERC-20, ERC-721 and ERC-1155 transfer from or to
 * any of `wallets` without an address filter: ERC-20 and ERC-721 `Transfer` share one signature
 * (with the wallet as topic 1 or 2), ERC-1155 `TransferSingle`/`TransferBatch` put it in topic 2
 * or 3. Indexed topics are what nodes serve fast (geth's log index, Erigon's bitmaps). Several
 * wallets go in one filter as alternatives for that topic, so a batch of wallets costs the node
 * the calls, and the pass over its blocks, of one.
 */
export const walletTransferFilters = (wallets: ReadonlyArray<string>): ReadonlyArray<LogFilter> => {
  const topics = wallets.map(topicOf);
  const us = topics.length === 1 ? topics[0]! : topics;
  return [
    { topics: [TRANSFER, us] },
    { topics: [TRANSFER, null, us] },
    { topics: [[TRANSFER_SINGLE, TRANSFER_BATCH], null, us] },
    { topics: [[TRANSFER_SINGLE, TRANSFER_BATCH], null, null, us] },
  ];
};

/** What one stretch of a wallet's history showed. */
export interface ScannedStretch {
  readonly tokens: ReadonlyArray<FoundToken>;
  /** Token ids the wallet received from each of `nftContracts` (lower-case address -> ids). */
  readonly nftIds: ReadonlyMap<string, ReadonlyArray<bigint>>;
  readonly logs: number;
}

interface Finds {
  readonly tokens: Map<string, FoundToken>;
  readonly nftIds: Map<string, Array<bigint>>;
  logs: number;
}

const standardOf = (log: RpcLog): FoundToken["standard"] | undefined => {
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 === TRANSFER)
    return log.topics.length === 4 ? "erc721" : log.topics.length === 3 ? "erc20" : undefined;
  if (topic0 === TRANSFER_SINGLE || topic0 === TRANSFER_BATCH) return "erc1155";
  return undefined;
};

/** The topics that name a sender or receiver: what the filters matched the wallets against. */
const partiesOf = (standard: FoundToken["standard"]): ReadonlyArray<number> =>
  standard === "erc1155" ? [2, 3] : [1, 2];

/** Splits the answers of a batch's filters by wallet; a log two filters both returned counts once. */
const attribute = (
  answers: ReadonlyArray<ReadonlyArray<RpcLog>>,
  wallets: ReadonlyArray<string>,
  nftContracts: ReadonlySet<string>,
): Map<string, ScannedStretch> => {
  const byTopic = new Map<string, Finds>();
  for (const wallet of wallets)
    byTopic.set(topicOf(wallet), { tokens: new Map(), nftIds: new Map(), logs: 0 });
  const seen = new Set<string>();
  for (const logs of answers)
    for (const log of logs) {
      const id = `${log.blockHash}:${log.logIndex}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const standard = standardOf(log);
      if (standard === undefined) continue;
      const token = log.address.toLowerCase();
      const block = Number(log.blockNumber);
      // A transfer between two wallets of the batch is found for both (and once for a self-transfer).
      const parties = new Set(partiesOf(standard).map((i) => log.topics[i]?.toLowerCase()));
      for (const party of parties) {
        const finds = party === undefined ? undefined : byTopic.get(party);
        if (finds === undefined) continue;
        finds.logs++;
        const known = finds.tokens.get(token);
        if (known === undefined || block < known.block) finds.tokens.set(token, { token, standard, block });
        if (standard === "erc721" && nftContracts.has(token) && log.topics[2]?.toLowerCase() === party) {
          const ids = finds.nftIds.get(token) ?? [];
          ids.push(BigInt(log.topics[3]!));
          finds.nftIds.set(token, ids);
        }
      }
    }
  const out = new Map<string, ScannedStretch>();
  for (const wallet of wallets) {
    const finds = byTopic.get(topicOf(wallet))!;
    out.set(wallet, { tokens: [...finds.tokens.values()], nftIds: finds.nftIds, logs: finds.logs });
  }
  return out;
};

/**
 * Whether a refusal of a batch's filters may be its width: geth takes at most 1,000 alternatives
 * per topic (`--rpc.logquerylimit`), Infura 5,000 filters (both read as `Rejected`,
 * classifyRefusal); other nodes may cap the request in words we do not know. A node that judged
 * the request, or answered what we cannot read, may take half of it.
 */
const mayBeTooWide = (error: unknown): boolean =>
  error instanceof ChainRpcError && (error.reason === "Rejected" || error.reason === "BadResponse");

/** Most wallets one filter names: lowered to what the node took once it refused more. */
export interface FilterWidth {
  most: number;
}

/**
 * The token transfers of each of `wallets` in blocks `from`..`to`, through the chain's RPC layer
 * (ranges it tunes to the node, receipts for a block over a result cap), by wallet: the tokens
 * they moved, each with the first block it was seen in, and the ids of NFTs of `nftContracts` the
 * wallet received (a position manager that cannot list an owner's NFTs, such as Uniswap V4's).
 * Wallets are asked `width.most` at a time. A batch the node refuses is asked again in halves,
 * down to single wallets, whose refusal fails the stretch; once a half is answered, `width`
 * keeps that size, so the next stretches do not meet the refusal again.
 */
export const scanWalletsStretch = (
  rpc: ChainRpc,
  wallets: ReadonlyArray<string>,
  from: number,
  to: number,
  nftContracts: ReadonlySet<string>,
  width: FilterWidth = { most: wallets.length },
): Effect.Effect<ReadonlyMap<string, ScannedStretch>, unknown> => {
  const scanBatch = (
    batch: ReadonlyArray<string>,
  ): Effect.Effect<ReadonlyMap<string, ScannedStretch>, unknown> =>
    Effect.gen(function* () {
      const answers = yield* Effect.either(
        Effect.forEach(walletTransferFilters(batch), (filter) => getLogs(rpc, filter, from, to), {
          concurrency: "unbounded",
        }),
      );
      if (answers._tag === "Right") return attribute(answers.right, batch, nftContracts);
      if (batch.length === 1 || !mayBeTooWide(answers.left)) return yield* Effect.fail(answers.left);
      const half = Math.ceil(batch.length / 2);
      const first = yield* scanBatch(batch.slice(0, half));
      width.most = Math.min(width.most, half);
      const second = yield* scanBatch(batch.slice(half));
      return new Map([...first, ...second]);
    });
  return Effect.gen(function* () {
    const found = new Map<string, ScannedStretch>();
    let next = 0;
    while (next < wallets.length) {
      const batch = wallets.slice(next, next + Math.max(1, width.most));
      for (const [wallet, stretch] of yield* scanBatch(batch)) found.set(wallet, stretch);
      next += batch.length;
    }
    return found;
  });
};
