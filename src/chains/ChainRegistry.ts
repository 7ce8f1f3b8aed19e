import type { ChainConfig, ChainsConfigFile, EndpointFamily } from "./ChainsConfig.js";

/** Tags the service knows of even when no configured chain carries them (they expand to nothing). */
export const WELL_KNOWN_TAGS = ["default", "mainnet", "testnet", "devnet"] as const;

/** The chains a deployment serves, with lookups by id and tag. Pure data: no I/O. */
export interface ChainRegistry {
  /** Every configured chain, in ascending chain id order. */
  readonly chains: ReadonlyArray<ChainConfig>;
  readonly byId: ReadonlyMap<number, ChainConfig>;
  readonly byName: ReadonlyMap<string, ChainConfig>;
  /** Every tag usable in `chain_ids`: the well-known ones plus those in the configuration. */
  readonly tags: ReadonlySet<string>;
  /** Whether the chain serves the endpoint family (families not mentioned in config are served). */
  readonly supports: (chain: ChainConfig, family: EndpointFamily) => boolean;
  /** Directory of the chains file: relative paths in it (`token_lists`) are read from there. */
  readonly directory?: string;
}

export const supportsFamily = (chain: ChainConfig, family: EndpointFamily): boolean =>
  chain.supports?.[family] ?? true;

export const makeChainRegistry = (file: ChainsConfigFile): ChainRegistry => {
  const chains = [...file.chains].sort((a, b) => a.chain_id - b.chain_id);
  const tags = new Set<string>(WELL_KNOWN_TAGS);
  for (const chain of chains) for (const tag of chain.tags) tags.add(tag);
  return {
    chains,
    byId: new Map(chains.map((chain) => [chain.chain_id, chain])),
    byName: new Map(chains.map((chain) => [chain.name, chain])),
    tags,
    supports: supportsFamily,
  };
};
