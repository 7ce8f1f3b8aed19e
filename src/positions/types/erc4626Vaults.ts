import type { Hex } from "viem";
import { vaultAssetsCall, vaultPositionCall } from "../../chains/lens/vaultLens.js";
import type { RawCall } from "../../chains/multicall3.js";
import { uintWord } from "../../chains/rawCalls.js";
import type { Erc4626Position } from "../../contracts/Positions.js";
import { EMPTY_PLAN, type PositionPlan, wholeTokens } from "../PositionPlan.js";
import type { HeldVault } from "../vaults/discoverVaults.js";

/** The share amount whose worth prices a vault that is another vault's asset. */
const PRICE_SHARES = 10n ** 18n;

/**
 * ERC-4626 vault shares (`Erc4626`). Through VaultLens, with a gas cap per call to the vault: the
 * wallet's `balanceOf` and `convertToAssets` of it, which is `calculated_balance` in the asset's
 * units. The asset is priced by the pricing service; an asset that is itself a vault is priced
 * through it: its own asset's price times what its shares convert to.
 */
export const planErc4626 = (wallet: string, held: ReadonlyArray<HeldVault>, lensCode: Hex): PositionPlan => {
  if (held.length === 0) return EMPTY_PLAN;
  const innerVaults = [...new Set(held.filter((h) => h.innerAsset !== undefined).map((h) => h.asset))];
  const calls: Array<RawCall> = [
    ...held.map((h) => vaultPositionCall(lensCode, h.vault, wallet)),
    ...innerVaults.map((vault) => vaultAssetsCall(lensCode, vault, PRICE_SHARES)),
  ];
  const sharePriceAt = new Map(innerVaults.map((vault, i) => [vault, held.length + i]));
  return {
    calls,
    priced: held.map((h) => h.innerAsset ?? h.asset),
    described: held.flatMap((h) => [h.vault, h.asset, ...(h.innerAsset === undefined ? [] : [h.innerAsset])]),
    finish: (results, valuation) => {
      /** USD per whole token of `h.asset`: its pool price, or through the inner vault. */
      const assetPrice = (h: HeldVault): number | undefined => {
        if (h.innerAsset === undefined) return valuation.price(h.asset)?.priceUsd;
        const innerPrice = valuation.price(h.innerAsset)?.priceUsd;
        const converted = uintWord(results[sharePriceAt.get(h.asset)!], 0);
        const shareDecimals = valuation.token(h.asset).decimals;
        const innerDecimals = valuation.token(h.innerAsset).decimals;
        if (
          innerPrice === undefined ||
          converted === undefined ||
          shareDecimals === null ||
          innerDecimals === null
        )
          return undefined;
        // Whole inner assets per whole share of the inner vault.
        const perShare = wholeTokens(converted, innerDecimals) * (10 ** shareDecimals / Number(PRICE_SHARES));
        return innerPrice * perShare;
      };
      const out: Array<Erc4626Position> = [];
      held.forEach((h, i) => {
        const shares = uintWord(results[i], 0);
        const assets = uintWord(results[i], 1);
        if (shares === undefined || assets === undefined || shares === 0n) return;
        const vault = valuation.token(h.vault);
        const asset = valuation.token(h.asset);
        if (asset.decimals === null) return;
        const amount = wholeTokens(assets, asset.decimals);
        const price = assetPrice(h);
        out.push({
          type: "Erc4626",
          chain_id: valuation.chain.chain_id,
          token: h.vault,
          token_name: vault.name,
          token_symbol: vault.symbol,
          underlying_token: h.asset,
          underlying_token_name: asset.name,
          underlying_token_symbol: asset.symbol,
          underlying_token_decimals: asset.decimals,
          calculated_balance: amount,
          shares: `0x${shares.toString(16)}`,
          ...(price === undefined ? {} : { price_in_usd: price, usd_value: amount * price }),
          logo: valuation.logo(h.innerAsset ?? h.asset),
        });
      });
      return out;
    },
  };
};
