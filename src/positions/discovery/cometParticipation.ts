import { protocolsOf } from "../../chains/ChainsConfig.js";
import { addressWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { LendingParticipation } from "../../indexer/IndexRecords.js";
import { lendingParticipationKey } from "../../indexer/indexKeys.js";
import { ZERO_ADDRESS } from "./abiWords.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/** Collateral assets read per Comet at most (`numAssets` is a uint8; real markets list under 25). */
const MAX_ASSETS = 255;

/**
 * A wallet's parts in the registry's Comet markets, as the indexer records them from `Supply`,
 * `Withdraw`, `SupplyCollateral` and `WithdrawCollateral`: the market itself (key asset `-`) where
 * it has a base supply or a borrow (`balanceOf`, `borrowBalanceOf`), and each collateral asset it
 * holds (`collateralBalanceOf(wallet, asset)` over `getAssetInfo(i)` for `i < numAssets()`). Three
 * round trips: balances and asset counts, the assets, the collateral balances. A part emptied since
 * (collateral withdrawn or absorbed) is not found, where the indexer's record, kept once seen, would
 * be; the balances read at request time show nothing for it either way.
 */
export const findCometParticipation = async (
  context: DiscoveryContext,
  walletAddress: string,
): Promise<Findings> => {
  const wallet = walletAddress.toLowerCase();
  const comets = protocolsOf(context.chain)
    .filter((p) => p.kind === "comet")
    .map((p) => p.address);
  if (comets.length === 0) return NO_FINDINGS;
  const chainId = context.chain.chain_id;
  const record: LendingParticipation = { block: context.block.number };
  const writes: Array<readonly [string, LendingParticipation]> = [];

  const first = await readAt(
    context,
    comets.flatMap((comet) => [
      rawCall(comet, "numAssets()"),
      rawCall(comet, "balanceOf(address)", wallet),
      rawCall(comet, "borrowBalanceOf(address)", wallet),
    ]),
  );
  const slots = comets.flatMap((comet, i) => {
    const supplied = uintWord(first[3 * i + 1], 0) ?? 0n;
    const borrowed = uintWord(first[3 * i + 2], 0) ?? 0n;
    if (supplied > 0n || borrowed > 0n)
      writes.push([lendingParticipationKey(wallet, chainId, comet, undefined), record]);
    const count = Math.min(Number(uintWord(first[3 * i], 0) ?? 0n), MAX_ASSETS);
    return Array.from({ length: count }, (_, index) => ({ comet, index }));
  });

  if (slots.length > 0) {
    const infos = await readAt(
      context,
      slots.map(({ comet, index }) => rawCall(comet, "getAssetInfo(uint8)", index)),
    );
    // `AssetInfo` is (offset, asset, priceFeed, scale, factors..., supplyCap): the asset is word 1.
    const assets = slots.flatMap(({ comet }, i) => {
      const asset = addressWord(infos[i], 1);
      return asset === undefined || asset === ZERO_ADDRESS ? [] : [{ comet, asset }];
    });
    const balances = await readAt(
      context,
      assets.map(({ comet, asset }) => rawCall(comet, "collateralBalanceOf(address,address)", wallet, asset)),
    );
    assets.forEach(({ comet, asset }, i) => {
      if ((uintWord(balances[i], 0) ?? 0n) > 0n)
        writes.push([lendingParticipationKey(wallet, chainId, comet, asset), record]);
    });
  }
  return { ops: (await addNewKeys(context.db, writes)).ops };
};
