import { Effect } from "effect";
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { chainErrors } from "../../chains/readEachChain.js";
import { selectChains } from "../../chains/selectChains.js";
import { defiPositions } from "../../contracts/Positions.js";
import { answeringAbout } from "../../discovery/Discovery.js";
import { discoveryWarnings } from "../../discovery/discoveryWarnings.js";
import { aggregatePositions, comparePositions } from "../../positions/aggregatePositions.js";
import { Positions } from "../../positions/Positions.js";
import { ApiSettings } from "../ApiSettings.js";
import { askedBlock, askedHeight, blockFields, pinnedTo } from "../askedBlock.js";
import { route } from "../Handler.js";

/**
 * GET /beta/evm/defi/positions/{address}: the wallet's positions on the requested chains
 * (default: the `default` chains serving positions), with aggregations. 2 CU per chain read.
 * With `block_number` (one chain only) the answer is as of that block, which it names.
 */
export const defiPositionsRoute = route(defiPositions, ({ params, query }) =>
  Effect.gen(function* () {
    const config = yield* ApiSettings;
    const selected = yield* selectChains(
      yield* Chains,
      "defi_positions",
      query.chain_ids,
      "Positions",
      config.publicUrl,
    );
    const { chains, warnings } = selected;
    const height = yield* askedHeight(query.block_number, selected, query.chain_ids !== undefined);
    const service = yield* Positions;
    const asked = yield* askedBlock(height, service.pastBlock);
    const snapshot = yield* service.get(
      params.address,
      chains,
      asked === undefined ? {} : { pinned: pinnedTo(asked) },
    );
    const clients = yield* ChainClients;
    const partial = discoveryWarnings(
      snapshot.reads.map(({ chain, value }) => ({ chain, progress: value.progress })),
      (chainId) => clients.get(chainId)?.capabilities().logsFrom,
      "Positions",
      config.publicUrl,
    );
    const allWarnings = [...warnings, ...partial];
    const positions = snapshot.reads.flatMap((read) => read.value.positions).sort(comparePositions);
    return {
      // 2 CU per chain processed (spec 8): a chain whose node failed is reported in `errors`, not charged.
      cu: 2 * snapshot.reads.length,
      body: {
        wallet_address: params.address,
        positions,
        aggregations: aggregatePositions(positions),
        ...chainErrors(snapshot.failures, "Positions"),
        ...(allWarnings.length === 0 ? {} : { warnings: allWarnings }),
        ...(asked === undefined ? {} : blockFields(asked)),
      },
    };
  }).pipe(answeringAbout(params.address, "positions")),
);
