import { Effect } from "effect";
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { supportedChains } from "../../contracts/Chains.js";
import { IngestStatusBook } from "../../ingest/IngestStatusBook.js";
import { route } from "../Handler.js";

/**
 * GET /v1/evm/supported-chains: public, 0 CU. Besides the registry, what each chain's RPC
 * endpoints were found to answer where it changes what a client gets: how far back historical
 * prices reach, and whether webhooks carry internal native transfers.
 */
export const supportedChainsRoute = route(supportedChains, () =>
  Effect.gen(function* () {
    const registry = yield* Chains;
    const clients = yield* ChainClients;
    const ingest = yield* IngestStatusBook;
    return {
      cu: 0,
      headers: { "Cache-Control": "public, max-age=60" },
      body: {
        chains: registry.chains.map((chain) => {
          const caps = clients.get(chain.chain_id)?.capabilities();
          return {
            name: chain.name,
            chain_id: chain.chain_id,
            tags: chain.tags,
            balances: { supported: registry.supports(chain, "balances") },
            defi_positions: { supported: registry.supports(chain, "defi_positions") },
            subscriptions: { supported: registry.supports(chain, "subscriptions") },
            indexed_from_block: ingest.get(chain.chain_id)?.indexed_from ?? null,
            historical_prices: { state_from_block: caps?.stateFrom ?? null },
            internal_transfers: {
              supported: !chain.traces ? false : caps?.traces === undefined ? null : caps.traces,
            },
          };
        }),
      },
    };
  }),
);
