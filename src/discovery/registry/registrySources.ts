import { createHash } from "node:crypto";
import { type ChainConfig, type ProtocolKind, protocolsOf } from "../../chains/ChainsConfig.js";
import type { LogFilter } from "../../chains/rpc/getLogs.js";
import { EVENT_TOPICS } from "../../decoding/index.js";

/**
 * One contract of the registry whose own events list what the index keeps about a deployment:
 * a pool factory or PoolManager (its pools), an Aave configurator (its reserves' tokens), a
 * comptroller (its cToken markets), a Pendle yield contract factory (PT and YT) or market factory
 * (markets). `start` is the deployment's `start_block`: nothing of it is older.
 */
export interface RegistrySource {
  readonly address: string;
  readonly kind: ProtocolKind;
  readonly protocol: string;
  readonly start: number;
}

/**
 * The events the indexer turns into registry views (applyBlock.ts and its planners): pool
 * creations of every design, `ReserveInitialized`, `MarketListed`, `CreateYieldContract` and
 * `CreateNewMarket`. A filter on topic 0 with these, and on the sources' addresses, makes a node
 * answer only them: everything else a factory or a comptroller emits stays on the node.
 */
export const REGISTRY_TOPICS: ReadonlyArray<string> = [
  EVENT_TOPICS.v2PairCreated,
  EVENT_TOPICS.v3PoolCreated,
  EVENT_TOPICS.v4Initialize,
  EVENT_TOPICS.algebraPool,
  EVENT_TOPICS.aaveReserveInitialized,
  EVENT_TOPICS.cTokenMarketListed,
  EVENT_TOPICS.pendleCreateYieldContract,
  EVENT_TOPICS.pendleCreateNewMarket,
];

/**
 * The chain's registry contracts that emit those events. Comets and restaking StrategyManagers
 * have none (a Comet is its own market, read from the chain; deposits are wallets' own events).
 */
export const registrySources = (chain: ChainConfig): ReadonlyArray<RegistrySource> => {
  const sources = new Map<string, RegistrySource>();
  for (const p of protocolsOf(chain)) {
    const add = (address: string | undefined) => {
      if (address === undefined) return;
      const start = p.start_block ?? 0;
      const known = sources.get(address);
      // One contract listed twice (a fork sharing a factory) is read from the older start.
      if (known === undefined || start < known.start)
        sources.set(address, { address, kind: p.kind, protocol: p.protocol, start });
    };
    switch (p.kind) {
      case "v2":
      case "v3":
      case "v4":
      case "algebra":
      case "ctoken":
        add(p.address);
        break;
      case "aave_v2":
      case "aave_v3":
        add(p.configurator);
        break;
      case "pendle":
        add(p.address);
        add(p.market_factory);
        break;
      default:
        break;
    }
  }
  return [...sources.values()].sort((a, b) => a.start - b.start || a.address.localeCompare(b.address));
};

/** The eth_getLogs filter of the sources that existed by block `upTo` (undefined: none did). */
export const registryFilter = (
  sources: ReadonlyArray<RegistrySource>,
  upTo: number,
): LogFilter | undefined => {
  const addresses = sources.filter((s) => s.start <= upTo).map((s) => s.address);
  return addresses.length === 0 ? undefined : { address: addresses, topics: [[...REGISTRY_TOPICS]] };
};

/**
 * A short hash of what the backfill reads (each source's address, kind and start): a chains file
 * that adds a factory or moves a start back makes a finished backfill start over, so the new
 * entry's history is read too. Order-independent.
 */
export const sourcesFingerprint = (sources: ReadonlyArray<RegistrySource>): string =>
  createHash("sha256")
    .update(
      sources
        .map((s) => `${s.kind}:${s.address}:${s.start}`)
        .sort()
        .join(","),
    )
    .digest("hex")
    .slice(0, 16);
