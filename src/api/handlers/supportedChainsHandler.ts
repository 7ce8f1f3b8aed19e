import { Effect } from "effect";
import { Chains } from "../../chains/Chains.js";
import { supportedChains } from "../../contracts/Chains.js";
import { route } from "../Handler.js";

/** GET /v1/evm/supported-chains: public, 0 CU, built once from the registry. */
export const supportedChainsRoute = route(supportedChains, () =>
  Effect.map(Chains, (registry) => ({
    cu: 0,
    headers: { "Cache-Control": "public, max-age=60" },
    body: {
      chains: registry.chains.map((chain) => ({
        name: chain.name,
        chain_id: chain.chain_id,
        tags: chain.tags,
        balances: { supported: registry.supports(chain, "balances") },
        defi_positions: { supported: registry.supports(chain, "defi_positions") },
        subscriptions: { supported: registry.supports(chain, "subscriptions") },
      })),
    },
  })),
);
