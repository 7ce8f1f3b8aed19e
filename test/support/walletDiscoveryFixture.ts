import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import {
  DISCOVERY_DEFAULTS,
  type DiscoveryDeps,
  makeWalletDiscovery,
} from "../../src/discovery/WalletDiscovery.js";
import type { Db } from "../../src/storage/Level.js";

/**
 * A webhook queue's rate with no pacing timer between wallets: tests that wait for the queue by
 * counting event-loop turns must not depend on a real timer firing within those turns.
 */
export const UNPACED = Number.POSITIVE_INFINITY;

/**
 * Wallet discovery over one node's `rpc` on a chain whose index starts at block 1,000 (its
 * checkpoint), sweeping `listed`, with no position finders, log scans read 300 blocks a stretch,
 * and a clock that stands still; `overrides` replace any of that. A node never probed is taken as
 * probed and keeping every log (log scans wait for a probe).
 */
export const discoveryOverNode = (
  db: Db,
  rpc: ChainRpc,
  listed: ReadonlyArray<string>,
  overrides: Partial<DiscoveryDeps> = {},
) => {
  for (const endpoint of rpc.endpoints) endpoint.health.capabilities ??= { logsFrom: 0, probedAt: 0 };
  return makeWalletDiscovery({
    db,
    cache: undefined,
    rpc: () => rpc,
    checkpoint: async () => ({ number: 1_000 }),
    indexedFrom: () => 1_000,
    universe: { listed: () => listed },
    finders: { chain: [], wallet: [], nftContracts: () => new Set(), nftIds: async () => ({ ops: [] }) },
    settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300 },
    now: () => 0,
    warn: () => undefined,
    ...overrides,
  });
};
