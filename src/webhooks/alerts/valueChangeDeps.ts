import type { KV } from "@nats-io/kv";
import type { WalletDiscovery } from "../../discovery/WalletDiscovery.js";
import type { IndexReader } from "../../indexer/IndexReader.js";
import { priceSourcePools } from "../../pricing/priceSources.js";
import { positionFootprints } from "./positionFootprints.js";
import { kvBaselines } from "./ValueBaselines.js";
import type { ValueChangeDeps } from "./valueChangeAlerts.js";

/**
 * `value_change_pct`'s deps in a service process: baselines in the replicated `webhook_blocks`
 * bucket, footprints in this process's memory from its index (pricing pools, cTokens' underlyings)
 * and its discovery (a wallet's footprint is read again once discovery finds more of it).
 */
export const valueChangeDeps = (
  blocks: KV,
  reader: IndexReader,
  discovery: Pick<WalletDiscovery, "lastWrite" | "settledGeneration"> | undefined,
): ValueChangeDeps => ({
  baselines: kvBaselines(blocks),
  footprints: positionFootprints({
    priceSources: (chain, tokens) => priceSourcePools(reader, chain, tokens),
    lendingAsset: async (chainId, token) => (await reader.lendingTokens(chainId, [token]))[0]?.asset,
    ...(discovery === undefined
      ? {}
      : {
          discoveryVersion: (chainId: number, wallet: string) => discovery.lastWrite(chainId, wallet),
          discoveryGeneration: () => discovery.settledGeneration(),
        }),
  }),
});
