import { Effect } from "effect";
import { AppConfig } from "../../AppConfig.js";
import { Chains } from "../../chains/Chains.js";
import { incompleteHistoryWarning } from "../../chains/incompleteHistoryWarning.js";
import { chainErrors } from "../../chains/readEachChain.js";
import { selectChains } from "../../chains/selectChains.js";
import { defiPositions } from "../../contracts/Positions.js";
import { IngestStatusBook } from "../../ingest/IngestStatusBook.js";
import { aggregatePositions, comparePositions } from "../../positions/aggregatePositions.js";
import { Positions } from "../../positions/Positions.js";
import { route } from "../Handler.js";

/**
 * GET /beta/evm/defi/positions/{address}: the wallet's positions on the requested chains
 * (default: the `default` chains serving positions), with aggregations. 2 CU per chain read.
 */
export const defiPositionsRoute = route(defiPositions, ({ params, query }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const { chains, warnings } = yield* selectChains(
      yield* Chains,
      "defi_positions",
      query.chain_ids,
      "Positions",
      config.publicUrl,
    );
    const snapshot = yield* (yield* Positions).get(params.address, chains);
    const ingest = yield* IngestStatusBook;
    const partial = incompleteHistoryWarning(
      snapshot.reads.map((read) => read.chain),
      (chainId) => ingest.get(chainId)?.indexed_from,
      "Positions",
      config.publicUrl,
    );
    const allWarnings = partial === undefined ? warnings : [...warnings, partial];
    const positions = snapshot.reads.flatMap((read) => read.value).sort(comparePositions);
    return {
      // 2 CU per chain processed (spec 8): a chain whose node failed is reported in `errors`, not charged.
      cu: 2 * snapshot.reads.length,
      body: {
        wallet_address: params.address,
        positions,
        aggregations: aggregatePositions(positions),
        ...chainErrors(snapshot.failures, "Positions"),
        ...(allWarnings.length === 0 ? {} : { warnings: allWarnings }),
      },
    };
  }),
);
