import { createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";

/** A wallet client for one devnet chain, signing with one of the manifest's funded keys. */
export const devnetWallet = (chain: ManifestChain, privateKey: string) =>
  createWalletClient({
    account: privateKeyToAccount(privateKey as Hex),
    chain: {
      id: chain.chain_id,
      name: chain.name,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [chain.rpc_url] } },
    },
    transport: http(chain.rpc_url),
  });
