import { coldPositionsBench } from "./lib/coldPositionsBench.js";
import { hostileTokenCost } from "./lib/hostileTokenCost.js";

/**
 * Figures: the wallet holding every position type on three chains (see coldPositionsBench), and
 * what one hostile token among a wallet's tokens costs (see hostileTokenCost).
 */
export const everyTypeBench = async () => {
  const everyType = await coldPositionsBench({
    name: "every-type",
    chains: [1, 8453, 10],
    wallet: (chain) => chain.wallets.every_type!,
    holds:
      "every_type (AmmV2, Nft incl. Algebra, NftV4, Tokenized, LendingV2/LendingV2Fork, LendingV3, Erc4626, RestakeStrategy)",
  });
  return { name: everyType.name, lines: [...everyType.lines, ...(await hostileTokenCost())] };
};
