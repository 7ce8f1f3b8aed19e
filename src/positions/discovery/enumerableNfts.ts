import type { RawCall } from "../../chains/multicall3.js";
import { addressWord, intWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import type { IndexedPool } from "../../indexer/IndexRecords.js";
import { positionManagersOf } from "../../indexer/planPositionNfts.js";
import type { PositionManager } from "../../indexer/positionNftEvents.js";
import { ZERO_ADDRESS } from "./abiWords.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";
import { type FoundNft, nftOps } from "./nftRecords.js";

/**
 * NFTs read per wallet and manager at most. A wallet of 1,000 positions is read in the same four round
 * trips as one of a single position (each round's calls go out as parallel eth_calls of at most
 * CALLS_PER_READ); past that, a wallet is a vault or a bot, and the rest is reported as left out.
 */
export const NFTS_PER_MANAGER = 1_000;

/** One NFT as its manager records it: `positions(tokenId)` words 2 to 6. */
interface Managed {
  readonly manager: PositionManager;
  readonly tokenId: bigint;
  readonly token0: string;
  readonly token1: string;
  /** V3: the fee tier; Algebra Integral: the pool's custom deployer (zero for the factory's own pools). */
  readonly feeOrDeployer: bigint;
  readonly tickLower: number;
  readonly tickUpper: number;
}

/** NFTs of one pool share one factory lookup. */
const poolLookupKey = (m: Managed) =>
  `${m.manager.factory}|${m.token0}|${m.token1}|${m.manager.kind === "v3" ? m.feeOrDeployer : ""}`;

/**
 * The factory calls that name an NFT's pool: V3 `getPool(token0, token1, fee)` with the tier's
 * `feeAmountTickSpacing` (what the indexer reads from `PoolCreated`); Algebra `poolByPair`, whose
 * pools have a dynamic fee and a spacing of their own (recorded as null, as the indexer does).
 */
const lookupCalls = (m: Managed): ReadonlyArray<RawCall> =>
  m.manager.kind === "v3"
    ? [
        rawCall(m.manager.factory, "getPool(address,address,uint24)", m.token0, m.token1, m.feeOrDeployer),
        rawCall(m.manager.factory, "feeAmountTickSpacing(uint24)", m.feeOrDeployer),
      ]
    : [rawCall(m.manager.factory, "poolByPair(address,address)", m.token0, m.token1)];

/**
 * A wallet's position NFTs of the registry's V3-design and Algebra managers, found by asking each
 * manager (ERC721Enumerable) rather than from transfers the index saw: `balanceOf(wallet)`, then
 * `tokenOfOwnerByIndex(wallet, i)`, then `positions(tokenId)` for tokens, tier and range, then the
 * factory for the pool. Four round trips in all, whatever the number of managers and NFTs (one when
 * the wallet holds none), each one multicall at the context's block; at most `cap` NFTs per manager.
 *
 * Algebra NFTs of a custom deployer's pool are left out, as the indexer leaves their pools out.
 */
export const findEnumerableNfts = async (
  context: DiscoveryContext,
  walletAddress: string,
  cap: number = NFTS_PER_MANAGER,
): Promise<Findings> => {
  const wallet = walletAddress.toLowerCase();
  const managers = [...positionManagersOf(context.chain).values()].filter(
    (m) => m.kind === "v3" || m.kind === "algebra",
  );
  if (managers.length === 0) return NO_FINDINGS;

  const balances = await readAt(
    context,
    managers.map((m) => rawCall(m.manager, "balanceOf(address)", wallet)),
  );
  const held: Array<{ manager: PositionManager; count: number }> = [];
  const truncated: Array<string> = [];
  managers.forEach((manager, i) => {
    const balance = uintWord(balances[i], 0) ?? 0n;
    if (balance === 0n) return;
    if (balance > BigInt(cap))
      truncated.push(`${manager.protocol} position NFTs of ${manager.manager}: read ${cap} of ${balance}`);
    held.push({ manager, count: Number(balance > BigInt(cap) ? BigInt(cap) : balance) });
  });
  if (held.length === 0) return NO_FINDINGS;

  const slots = held.flatMap(({ manager, count }) =>
    Array.from({ length: count }, (_, i) => ({ manager, i })),
  );
  const idResults = await readAt(
    context,
    slots.map(({ manager, i }) =>
      rawCall(manager.manager, "tokenOfOwnerByIndex(address,uint256)", wallet, i),
    ),
  );
  const ids = slots.flatMap(({ manager }, i) => {
    const tokenId = uintWord(idResults[i], 0);
    return tokenId === undefined ? [] : [{ manager, tokenId }];
  });

  const positionResults = await readAt(
    context,
    ids.map(({ manager, tokenId }) => rawCall(manager.manager, "positions(uint256)", tokenId)),
  );
  const managed = ids.flatMap(({ manager, tokenId }, i): Array<Managed> => {
    const result = positionResults[i];
    const token0 = addressWord(result, 2);
    const token1 = addressWord(result, 3);
    const feeOrDeployer = uintWord(result, 4);
    const tickLower = intWord(result, 5, 24);
    const tickUpper = intWord(result, 6, 24);
    if (token0 === undefined || token1 === undefined || feeOrDeployer === undefined) return [];
    if (tickLower === undefined || tickUpper === undefined) return [];
    if (manager.kind === "algebra" && feeOrDeployer !== 0n) return [];
    return [
      {
        manager,
        tokenId,
        token0,
        token1,
        feeOrDeployer,
        tickLower: Number(tickLower),
        tickUpper: Number(tickUpper),
      },
    ];
  });

  // One factory lookup per distinct pool, however many NFTs share it.
  const lookups = new Map<string, { first: Managed; at: number }>();
  const calls: Array<RawCall> = [];
  for (const m of managed) {
    const key = poolLookupKey(m);
    if (lookups.has(key)) continue;
    lookups.set(key, { first: m, at: calls.length });
    calls.push(...lookupCalls(m));
  }
  const answers = await readAt(context, calls);
  const pools = new Map<string, IndexedPool | undefined>();
  for (const [key, { first, at }] of lookups) {
    const address = addressWord(answers[at], 0);
    const spacing = first.manager.kind === "v3" ? intWord(answers[at + 1], 0, 24) : undefined;
    const missing = address === undefined || address === ZERO_ADDRESS;
    if (missing || (first.manager.kind === "v3" && spacing === undefined)) {
      pools.set(key, undefined);
      continue;
    }
    const v3 = first.manager.kind === "v3";
    pools.set(key, {
      pool: address,
      kind: v3 ? "v3" : "algebra",
      protocol: first.manager.protocol,
      factory: first.manager.factory,
      token0: first.token0,
      token1: first.token1,
      fee: v3 ? Number(first.feeOrDeployer) : null,
      tick_spacing: v3 ? Number(spacing) : null,
      hooks: null,
      // Not the pool's creation, which a read cannot tell: the block discovery saw it at.
      created_block: context.block.number,
    });
  }

  const found = managed.flatMap((m): Array<FoundNft> => {
    const pool = pools.get(poolLookupKey(m));
    return pool === undefined
      ? []
      : [
          {
            manager: m.manager.manager,
            tokenId: m.tokenId,
            pool,
            tickLower: m.tickLower,
            tickUpper: m.tickUpper,
          },
        ];
  });
  const ops = await nftOps(context.db, context.chain.chain_id, wallet, context.block.number, found);
  return truncated.length === 0 ? { ops } : { ops, truncated: truncated.join("; ") };
};
