import { coldPositionsBench } from "./lib/coldPositionsBench.js";

/** ERC-4626 positions: the wallet holding the four devnet vaults on three chains (see coldPositionsBench). */
export const vaultsBench = () =>
  coldPositionsBench({
    name: "vaults",
    chains: [1, 8453, 10],
    wallet: (chain) => chain.wallets.vault_holder!,
    holds: "vault_holder (Erc4626: USDC, WETH, nested and donated vaults)",
  });
