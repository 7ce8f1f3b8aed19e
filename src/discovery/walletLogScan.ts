import { Effect } from "effect";
import { toEventSelector } from "viem";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import { eachLogs, type LogFilter } from "../chains/rpc/getLogs.js";
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

/**
 * Most tokens one stretch keeps for a wallet. A busy address (the zero address, an exchange's hot
 * wallet, a router) can move hundreds of thousands of tokens in a stretch; each found token costs
 * a metadata read and a key. Past this, the stretch's further tokens are left out and the wallet's
 * answers say so (`capped`).
 */
export const MAX_STRETCH_TOKENS = 10_000;

/** Most position NFT ids one stretch keeps for a wallet, per position manager. */
export const MAX_STRETCH_NFT_IDS = 1_000;

/** What one stretch of a wallet's history showed. */
export interface ScannedStretch {
  readonly tokens: ReadonlyArray<FoundToken>;
  /** Token ids the wallet received from each of `nftContracts` (lower-case address -> ids). */
  readonly nftIds: ReadonlyMap<string, ReadonlyArray<bigint>>;
  readonly logs: number;
  /** Tokens or position ids were left out past {@link MAX_STRETCH_TOKENS} or {@link MAX_STRETCH_NFT_IDS}. */
  readonly capped: boolean;
}

interface Finds {
  readonly tokens: Map<string, FoundToken>;
  readonly nftIds: Map<string, Array<bigint>>;
  logs: number;
  capped: boolean;
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

/**
 * The topic a filter of {@link walletTransferFilters} (by its index) shares its logs with: a log
 * whose that topic names a wallet of the batch was also answered to the filter before, and is
 * counted there.
 */
const SHARED_WITH_EARLIER: ReadonlyArray<number | undefined> = [undefined, 1, undefined, 2];

/**
 * Splits the answers of a batch's filters by wallet as they come, keeping only what it finds (the
 * tokens, the NFT ids): a log two filters both return counts once, by the filters' order instead
 * of a set of every log seen, so a busy address's stretch costs memory for its finds, not its logs.
 */
const makeAttribution = (wallets: ReadonlyArray<string>, nftContracts: ReadonlySet<string>) => {
  const byTopic = new Map<string, Finds>();
  for (const wallet of wallets)
    byTopic.set(topicOf(wallet), { tokens: new Map(), nftIds: new Map(), logs: 0, capped: false });
  const add = (filterIndex: number, logs: ReadonlyArray<RpcLog>) => {
    const shared = SHARED_WITH_EARLIER[filterIndex];
    for (const log of logs) {
      if (shared !== undefined && byTopic.has(log.topics[shared]?.toLowerCase() ?? "")) continue;
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
        if (known === undefined && finds.tokens.size >= MAX_STRETCH_TOKENS) finds.capped = true;
        else if (known === undefined || block < known.block)
          finds.tokens.set(token, { token, standard, block });
        if (standard === "erc721" && nftContracts.has(token) && log.topics[2]?.toLowerCase() === party) {
          const ids = finds.nftIds.get(token) ?? [];
          // Each id costs a read of its position: the zero address "receives" every burned one.
          if (ids.length >= MAX_STRETCH_NFT_IDS) finds.capped = true;
          else ids.push(BigInt(log.topics[3]!));
          finds.nftIds.set(token, ids);
        }
      }
    }
  };
  const found = (): Map<string, ScannedStretch> => {
    const out = new Map<string, ScannedStretch>();
    for (const wallet of wallets) {
      const finds = byTopic.get(topicOf(wallet))!;
      out.set(wallet, {
        tokens: [...finds.tokens.values()],
        nftIds: finds.nftIds,
        logs: finds.logs,
        capped: finds.capped,
      });
    }
    return out;
  };
  return { add, found };
};

/**
 * Whether a refusal of a batch's filters may be its width: geth takes at most 1,000 alternatives
 * per topic (`--rpc.logquerylimit`), Infura 5,000 filters (both read as `Rejected`,
 * classifyRefusal); other nodes may cap the request in words we do not know. A node that judged
 * the request, or answered what we cannot read, may take half of it.
 */
const mayBeTooWide = (error: unknown): boolean =>
  error instanceof ChainRpcError && (error.reason === "Rejected" || error.reason === "BadResponse");

/**
 * Most wallets one filter names: lowered to what the node took once it refused more, and raised
 * again (doubling, up to `max`) after `RAISE_AFTER` stretches answered at that width without a
 * refusal, so that one glitch (a gateway's garbled answer reads as a refusal too) does not cost
 * the chain's scans their batch for as long as the process runs. A node whose cap is real meets
 * it again then, once in `RAISE_AFTER` stretches.
 */
export interface FilterWidth {
  most: number;
  /** The width asked for before any refusal (the discovery's `scanBatch`). */
  readonly max: number;
  /** Stretches answered at `most` since it last changed. */
  answered: number;
}

/** Stretches answered in full at a lowered width before it is doubled again. */
export const RAISE_AFTER = 8;

export const filterWidth = (max: number): FilterWidth => ({ most: max, max, answered: 0 });

/** What one stretch showed of each wallet, and the wallets it could not read with why. */
export interface ScannedWallets {
  readonly found: ReadonlyMap<string, ScannedStretch>;
  /** Wallets the stretch could not be read for: the refusal (or failure) that stopped it. */
  readonly failed: ReadonlyMap<string, unknown>;
}

/** Wallets a node may refuse on their own in one stretch and fail alone; the next one stops it. */
export const LONE_REFUSALS = 1;

/**
 * The token transfers of each of `wallets` in blocks `from`..`to`, through the chain's RPC layer
 * (ranges it tunes to the node, receipts for a block over a result cap), by wallet: the tokens
 * they moved, each with the first block it was seen in, and the ids of NFTs of `nftContracts` the
 * wallet received (a position manager that cannot list an owner's NFTs, such as Uniswap V4's).
 * Wallets are asked `width.most` at a time. A batch the node refuses is asked again in halves,
 * down to single wallets; once both halves are read in full, `width` keeps their size, so the next
 * stretches do not meet the refusal again. A wallet the node refuses even alone fails alone, and the rest
 * are read; a second such refusal, or a failure that halving cannot help (the node down), stops
 * the stretch there: the wallets already answered keep their finds, the rest are `failed` with
 * it, and a later attempt asks them again. So one wallet the node always refuses does not fail
 * the wallets queued with it, and a node that refuses everything costs a few calls, not a halving
 * down to every wallet.
 */
export const scanWalletsStretch = (
  rpc: ChainRpc,
  wallets: ReadonlyArray<string>,
  from: number,
  to: number,
  nftContracts: ReadonlySet<string>,
  width: FilterWidth = filterWidth(wallets.length),
): Effect.Effect<ScannedWallets> => {
  /**
   * A batch's finds, the wallets refused alone, and the failure that stopped it (its wallets from
   * `at` on were not read).
   */
  type BatchOutcome = {
    readonly found: ReadonlyMap<string, ScannedStretch>;
    readonly refused: ReadonlyMap<string, unknown>;
    readonly stopped?: { readonly at: number; readonly error: unknown } | undefined;
  };
  let lone = 0;
  const answeredWhole = (outcome: BatchOutcome) =>
    outcome.refused.size === 0 && outcome.stopped === undefined;
  const scanBatch = (batch: ReadonlyArray<string>, offset: number): Effect.Effect<BatchOutcome> =>
    Effect.gen(function* () {
      const attribution = makeAttribution(batch, nftContracts);
      const answers = yield* Effect.either(
        Effect.forEach(
          walletTransferFilters(batch),
          (filter, i) =>
            eachLogs(rpc, filter, from, to, (logs) => attribution.add(i, logs), { keptOnly: true }),
          { concurrency: "unbounded", discard: true },
        ),
      );
      if (answers._tag === "Right") return { found: attribution.found(), refused: new Map() };
      const stop = { found: new Map(), refused: new Map(), stopped: { at: offset, error: answers.left } };
      if (!mayBeTooWide(answers.left)) return stop;
      if (batch.length === 1)
        return ++lone > LONE_REFUSALS
          ? stop
          : { found: new Map(), refused: new Map([[batch[0]!, answers.left]]) };
      const half = Math.ceil(batch.length / 2);
      const first = yield* scanBatch(batch.slice(0, half), offset);
      if (first.stopped !== undefined) return first;
      const second = yield* scanBatch(batch.slice(half), offset + half);
      // The refusal was the width's only if both halves were read in full: a wallet refused alone
      // under either says the node refused that wallet, whatever the width.
      if (answeredWhole(first) && answeredWhole(second)) lower(half);
      return {
        found: new Map([...first.found, ...second.found]),
        refused: new Map([...first.refused, ...second.refused]),
        stopped: second.stopped,
      };
    });
  const lower = (most: number) => {
    if (most >= width.most) return;
    width.most = most;
    width.answered = 0;
  };
  return Effect.gen(function* () {
    const found = new Map<string, ScannedStretch>();
    const failed = new Map<string, unknown>();
    let next = 0;
    let refusedAny = false;
    const asked = Math.max(1, width.most);
    while (next < wallets.length) {
      const batch = wallets.slice(next, next + Math.max(1, width.most));
      const outcome = yield* scanBatch(batch, next);
      for (const [wallet, stretch] of outcome.found) found.set(wallet, stretch);
      for (const [wallet, error] of outcome.refused) failed.set(wallet, error);
      if (width.most < asked || outcome.refused.size > 0) refusedAny = true;
      if (outcome.stopped !== undefined) {
        for (const wallet of wallets.slice(outcome.stopped.at))
          if (!found.has(wallet) && !failed.has(wallet)) failed.set(wallet, outcome.stopped.error);
        return { found, failed };
      }
      next += batch.length;
    }
    // Only a stretch that asked a full batch at the lowered width tells whether the node takes it.
    if (!refusedAny && width.most < width.max && wallets.length >= width.most) {
      width.answered++;
      if (width.answered >= RAISE_AFTER) {
        width.most = Math.min(width.max, width.most * 2);
        width.answered = 0;
      }
    }
    return { found, failed };
  });
};
