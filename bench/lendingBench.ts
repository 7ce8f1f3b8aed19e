import { coldPositionsBench } from "./lib/coldPositionsBench.js";

/** Lending positions: the wallet that is in every lending market on three chains (see coldPositionsBench). */
export const lendingBench = () =>
  coldPositionsBench({
    name: "lending",
    chains: [1, 8453, 10],
    wallet: (chain) => chain.wallets.lending_all!,
    holds: "lending_all (Tokenized, LendingV2, LendingV2Fork, LendingV3)",
  });
