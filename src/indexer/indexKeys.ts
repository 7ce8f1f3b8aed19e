/**
 * Key codecs of the indexer's LevelDB views. Every number is zero-padded to a
 * fixed width so that lexicographic order is numeric order: chain ids to 12
 * digits (any EIP-155 id in use), block numbers to 12 digits (10^12 blocks is
 * ~300,000 years at 10 ms blocks), unix seconds to 12 digits.
 * Addresses are lower-case hex, so they sort and compare as strings.
 */
const pad = (n: number) => String(n).padStart(12, "0");

/**
 * Chain ids met, padded: at most this many are kept, and all are forgotten when that many are, so
 * chain ids a request names (any number) cannot keep out the chains the service serves.
 */
const MOST_CHAINS_PADDED = 1024;
const paddedChains = new Map<number, string>();
/**
 * A chain id padded, made once per chain: each block's planning builds a key naming its chain for
 * every token a wallet touched, and padding each afresh was about a twentieth of what indexing a block allocated.
 */
const chainPart = (chainId: number): string => {
  let padded = paddedChains.get(chainId);
  if (padded === undefined) {
    padded = pad(chainId);
    if (paddedChains.size >= MOST_CHAINS_PADDED) paddedChains.clear();
    paddedChains.set(chainId, padded);
  }
  return padded;
};

export const PREFIX = "idx!";

/** The wallet-token view's keys begin with this (KeyPresence watches it: Service.ts). */
export const walletTokenView = `${PREFIX}wt!`;

/** Wallet touched token: `idx!wt!<wallet>!<chain>!<token>` -> TouchedToken. Prefix-scan by wallet. */
export const walletTokenKey = (wallet: string, chainId: number, token: string) =>
  `${walletTokenView}${wallet}!${chainPart(chainId)}!${token}`;
export const walletTokenPrefix = (wallet: string) => `${walletTokenView}${wallet}!`;
export const walletTokenChainPrefix = (wallet: string, chainId: number) =>
  `${walletTokenView}${wallet}!${chainPart(chainId)}!`;

/** Token ids as 64 hex digits, so that they sort numerically. */
const tokenIdHex = (tokenId: bigint) => tokenId.toString(16).padStart(64, "0");

/**
 * Position NFT a wallet holds now: `idx!wn!<wallet>!<chain>!<manager>!<token id hex>` -> WalletNft.
 * Prefix-scan by wallet.
 */
export const walletNftKey = (wallet: string, chainId: number, manager: string, tokenId: bigint) =>
  `${PREFIX}wn!${wallet}!${chainPart(chainId)}!${manager}!${tokenIdHex(tokenId)}`;
export const walletNftPrefix = (wallet: string) => `${PREFIX}wn!${wallet}!`;

/**
 * Position NFT a wallet has been seen holding, kept once seen (unlike `wn!`, which a transfer out
 * deletes): `idx!wh!<wallet>!<chain>!<manager>!<token id hex>` -> WalletNft (the first block it was
 * seen held). Answers at a past block (`block_number`) read these, and the owner at that block decides.
 */
export const walletHeldNftKey = (wallet: string, chainId: number, manager: string, tokenId: bigint) =>
  `${PREFIX}wh!${wallet}!${chainPart(chainId)}!${manager}!${tokenIdHex(tokenId)}`;
export const walletHeldNftPrefix = (wallet: string) => `${PREFIX}wh!${wallet}!`;

/** Where a position NFT was minted: `idx!nft!<chain>!<manager>!<token id hex>` -> NftRecord. */
export const nftKey = (chainId: number, manager: string, tokenId: bigint) =>
  `${PREFIX}nft!${chainPart(chainId)}!${manager}!${tokenIdHex(tokenId)}`;

/** A token carrying a lending position: `idx!lt!<chain>!<token>` -> LendingToken. */
export const lendingTokenKey = (chainId: number, token: string) =>
  `${PREFIX}lt!${chainPart(chainId)}!${token}`;

/**
 * A wallet's part in a lending market: `idx!lw!<wallet>!<chain>!<market>!<asset>` ->
 * LendingParticipation, where `market` is the cToken or the Comet and `asset` a Comet collateral
 * (`-` for the market itself). Prefix-scan by wallet.
 */
export const lendingParticipationKey = (
  wallet: string,
  chainId: number,
  market: string,
  asset: string | undefined,
) => `${PREFIX}lw!${wallet}!${chainPart(chainId)}!${market}!${asset ?? "-"}`;
export const lendingParticipationPrefix = (wallet: string) => `${PREFIX}lw!${wallet}!`;

/** ERC-4626 probe result: `idx!vt!<chain>!<token>` -> VaultProbe. */
export const vaultProbeKey = (chainId: number, token: string) => `${PREFIX}vt!${chainPart(chainId)}!${token}`;

/**
 * A staker's restaking deposit: `idx!rs!<staker>!<chain>!<strategy manager>!<strategy>` -> RestakeDeposit.
 * Prefix-scan by staker.
 */
export const restakeDepositKey = (staker: string, chainId: number, manager: string, strategy: string) =>
  `${PREFIX}rs!${staker}!${chainPart(chainId)}!${manager}!${strategy}`;
export const restakeDepositPrefix = (staker: string) => `${PREFIX}rs!${staker}!`;

/** A yield-splitting token (PT, YT or market): `idx!ys!<chain>!<token>` -> YieldSplitToken. */
export const yieldSplitTokenKey = (chainId: number, token: string) =>
  `${PREFIX}ys!${chainPart(chainId)}!${token}`;

/** The first market (LP token) of a principal token: `idx!ym!<chain>!<pt>` -> market address. */
export const yieldSplitMarketKey = (chainId: number, pt: string) => `${PREFIX}ym!${chainPart(chainId)}!${pt}`;

/** Token metadata: `idx!tm!<chain>!<token>` -> TokenMetadata. */
export const tokenMetadataKey = (chainId: number, token: string) =>
  `${PREFIX}tm!${chainPart(chainId)}!${token}`;

/** Pool: `idx!pool!<chain>!<pool address or v4 id>` -> IndexedPool. */
export const poolKey = (chainId: number, pool: string) => `${PREFIX}pool!${chainPart(chainId)}!${pool}`;
export const poolPrefix = (chainId: number) => `${PREFIX}pool!${chainPart(chainId)}!`;

/** Pools per token: `idx!tp!<chain>!<token>!<pool>` -> pool. Prefix-scan by token. */
export const tokenPoolKey = (chainId: number, token: string, pool: string) =>
  `${PREFIX}tp!${chainPart(chainId)}!${token}!${pool}`;
export const tokenPoolPrefix = (chainId: number, token: string) =>
  `${PREFIX}tp!${chainPart(chainId)}!${token}!`;
export const tokenPoolChainPrefix = (chainId: number) => `${PREFIX}tp!${chainPart(chainId)}!`;

/**
 * Factory lookup marker: `idx!pl!<chain>!<token>` -> PoolLookupMarker (src/pricing/poolLookupMarker.ts):
 * the registry's factories were asked for the token's pools at that block, whether or not they
 * had any. Not a view (not in VIEW_PREFIXES): it records work done, not what the chain holds.
 */
export const poolLookupKey = (chainId: number, token: string) => `${PREFIX}pl!${chainPart(chainId)}!${token}`;

/** Block time: `idx!bt!<chain>!<number>` -> unix seconds. */
export const blockTimeKey = (chainId: number, number: number) =>
  `${PREFIX}bt!${chainPart(chainId)}!${pad(number)}`;
/** Time to block: `idx!tb!<chain>!<unix seconds>!<number>` -> number. Seek backwards from a time. */
export const timeBlockKey = (chainId: number, seconds: number, number: number) =>
  `${PREFIX}tb!${chainPart(chainId)}!${pad(seconds)}!${pad(number)}`;
export const timeBlockPrefix = (chainId: number) => `${PREFIX}tb!${chainPart(chainId)}!`;
export const timeBlockBound = (chainId: number, seconds: number) =>
  `${PREFIX}tb!${chainPart(chainId)}!${pad(seconds)}!~`;

/**
 * The CHAIN_EVENTS stream the index was applied from: `idx!stream` -> its creation time. A stream
 * created again (deleted by hand, its JetStream store lost) numbers other messages from 1: an index
 * of the earlier one would resume past them, skipping as many as it had applied.
 */
export const INDEX_STREAM_KEY = `${PREFIX}stream`;

/**
 * CHAIN_EVENTS messages dropped by the stream's retention before this index applied them:
 * `idx!trimmed` -> IndexTrimmed (Indexer.ts). Not a view: it records what the index missed, on
 * every chain (which chains the dropped messages were of is not known). A record here that names a
 * chain was written by an earlier version, which kept a chain's own missed blocks here too; it
 * is read as every chain's.
 */
export const INDEX_TRIMMED_KEY = `${PREFIX}trimmed`;

/**
 * One chain's blocks that ingest never published (its nodes had pruned them when it read on):
 * `idx!trimmed!<chain>` -> IndexTrimmed with that `chain_id`. Only that chain's wallets are
 * discovered again for it.
 */
export const indexChainTrimmedKey = (chainId: number) => `${PREFIX}trimmed!${chainPart(chainId)}`;
export const INDEX_CHAIN_TRIMMED_PREFIX = `${PREFIX}trimmed!`;

/**
 * A chain's blocks the index never applied (ingest never published them, or the stream dropped
 * them first): `idx!gap!<chain>` -> { from, to }, spanning every such gap (Indexer.ts). Not a view:
 * wallets' log scans read up to its `to`, since what those blocks did is not in the index.
 */
export const indexGapKey = (chainId: number) => `${PREFIX}gap!${chainPart(chainId)}`;
export const INDEX_GAP_PREFIX = `${PREFIX}gap!`;

/**
 * A wallet whose token touches the index records on a chain indexed for discovered wallets only
 * (IndexedWallets.ts): `idx!iw!<chain>!<wallet>` -> the first block recorded. Not a view.
 */
export const indexedWalletKey = (chainId: number, wallet: string) =>
  `${PREFIX}iw!${chainPart(chainId)}!${wallet}`;
/** How a chain's index last recorded wallets' touches: `idx!iwm!<chain>` (IndexedWallets.ts). Not a view. */
export const indexedWalletsModeKey = (chainId: number) => `${PREFIX}iwm!${chainPart(chainId)}`;

/** Where discovery keeps its records of a chain's wallets: `idx!ds!<chain>!<wallet>` (DiscoveryRecord.ts). */
export const discoveryRecordPrefix = (chainId: number) => `${PREFIX}ds!${chainPart(chainId)}!`;

/** Last block applied per chain: `idx!ck!<chain>` -> { number, hash }. */
export const indexCheckpointKey = (chainId: number) => `${PREFIX}ck!${chainPart(chainId)}`;

/**
 * What a block changed, to restore if it is reorganised away: `idx!undo!<chain>!<number>` ->
 * UndoEntry[] (a key the block added, or a key with the value it had before the block).
 */
export const undoKey = (chainId: number, number: number) =>
  `${PREFIX}undo!${chainPart(chainId)}!${pad(number)}`;
export const undoPrefix = (chainId: number) => `${PREFIX}undo!${chainPart(chainId)}!`;

/** Start of the range of keys for one view (for comparisons and rebuilds). */
export const VIEW_PREFIXES = [
  "wt!",
  "wn!",
  "wh!",
  "nft!",
  "lt!",
  "lw!",
  "vt!",
  "rs!",
  "tm!",
  "pool!",
  "tp!",
  "bt!",
  "tb!",
].map((view) => PREFIX + view);
