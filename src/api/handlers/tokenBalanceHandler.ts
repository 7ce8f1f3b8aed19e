import { Effect, Either } from "effect";
import { AppConfig } from "../../AppConfig.js";
import { Balances } from "../../balances/Balances.js";
import { parseHistoricalPrices, parseMetadata } from "../../balances/parseBalancesQuery.js";
import { Chains } from "../../chains/Chains.js";
import { parseChainIds } from "../../chains/parseChainIds.js";
import { unsupportedChainsWarning } from "../../chains/unsupportedChainsWarning.js";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { tokenBalance } from "../../contracts/Balances.js";
import { route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";

const orFail = <A>(result: Either.Either<A, { code: string; message: string }>) =>
  Either.isLeft(result) ? Effect.fail(new InvalidRequest(result.left)) : Effect.succeed(result.right);

/**
 * GET /v1/evm/balances/{address}/token/{token_address}: one token (or `native`)
 * on exactly one chain, read at the chain's indexed block; a wallet holding none
 * gets its entry with amount "0". 1 CU.
 */
export const tokenBalanceRoute = route(tokenBalance, ({ params, query }) =>
  Effect.gen(function* () {
    const registry = yield* Chains;
    const config = yield* AppConfig;
    const service = yield* Balances;
    const { receivedAt } = yield* RequestContext;

    if (query.chain_ids === undefined) {
      return yield* new InvalidRequest({
        code: "INVALID_CHAIN_IDS",
        message: "chain_ids is required here and must name exactly one chain.",
      });
    }
    const selection = parseChainIds(registry, "balances", query.chain_ids);
    if (Either.isLeft(selection))
      return yield* new InvalidRequest({ code: "INVALID_CHAIN_IDS", message: selection.left.message });
    const { chains, unsupported } = selection.right;
    if (chains.length + unsupported.length !== 1) {
      return yield* new InvalidRequest({
        code: "INVALID_CHAIN_IDS",
        message: `chain_ids must name exactly one chain here (it names ${chains.length + unsupported.length}).`,
      });
    }
    const metadata = yield* orFail(parseMetadata(query.metadata));
    const historicalHours = yield* orFail(parseHistoricalPrices(query.historical_prices));
    const chain = chains[0];
    const warning = unsupportedChainsWarning(unsupported, "Balances", config.publicUrl);
    const base = {
      wallet_address: params.address,
      ...(warning === undefined ? {} : { warnings: [warning] }),
    };
    if (chain === undefined) {
      return {
        cu: 1,
        body: {
          ...base,
          balances: [],
          request_time: new Date(receivedAt).toISOString(),
          response_time: new Date().toISOString(),
        },
      };
    }
    const token = params.token_address;
    const snapshot = yield* service.snapshot(params.address, [chain], undefined, {
      chainId: chain.chain_id,
      token,
    });
    const holding = snapshot.byChain[0]?.holdings.holdings.find((h) => h.address === token);
    const entries =
      holding === undefined
        ? []
        : yield* service.entries([{ chain, holding }], { historicalHours, metadata });
    return {
      cu: 1,
      body: {
        ...base,
        balances: entries,
        request_time: new Date(receivedAt).toISOString(),
        response_time: new Date().toISOString(),
      },
    };
  }),
);
