import { Effect, Either } from "effect";
import { AppConfig } from "../../AppConfig.js";
import { Balances, isSpam, sortEntries } from "../../balances/Balances.js";
import { CursorSecret } from "../../balances/CursorSecret.js";
import { nextOffset, pageOf, readOffset } from "../../balances/pageBalances.js";
import {
  parseBoolean,
  parseFilters,
  parseHistoricalPrices,
  parseLimit,
  parseMetadata,
} from "../../balances/parseBalancesQuery.js";
import { toBalanceEntry } from "../../balances/toBalanceEntry.js";
import { Chains } from "../../chains/Chains.js";
import { chainErrors } from "../../chains/readEachChain.js";
import { selectChains } from "../../chains/selectChains.js";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { balances } from "../../contracts/Balances.js";
import { route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";

const orFail = <A>(result: Either.Either<A, { code: string; message: string }>) =>
  Either.isLeft(result) ? Effect.fail(new InvalidRequest(result.left)) : Effect.succeed(result.right);

/**
 * GET /v1/evm/balances/{address}: every parameter of spec 4.5, sorted by value,
 * paged with a signed cursor that pins each chain's block. 1 CU per chain served.
 */
export const balancesRoute = route(balances, ({ params, query }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const service = yield* Balances;
    const secret = yield* CursorSecret;
    const { receivedAt } = yield* RequestContext;
    const wallet = params.address;

    const { chains, warnings } = yield* selectChains(
      yield* Chains,
      "balances",
      query.chain_ids,
      "Balances",
      config.publicUrl,
    );
    const filters = yield* orFail(parseFilters(query.filters));
    const metadata = yield* orFail(parseMetadata(query.metadata));
    const excludeSpam = yield* orFail(parseBoolean("exclude_spam_tokens", query.exclude_spam_tokens));
    const historicalHours = yield* orFail(parseHistoricalPrices(query.historical_prices));
    const limit = yield* orFail(parseLimit(query.limit));
    const fingerprint = JSON.stringify([chains.map((c) => c.chain_id), filters ?? "", excludeSpam]);
    const nowSeconds = Math.floor(receivedAt / 1000);
    const cursor = yield* orFail(
      readOffset(secret, query.offset, { wallet, query: fingerprint, nowSeconds }),
    );

    const snapshot = yield* service.snapshot(
      wallet,
      chains,
      cursor === undefined ? {} : { pinned: new Map(cursor.blocks) },
    );
    const shape = Effect.gen(function* () {
      const rows = snapshot.byChain
        .flatMap(({ chain, holdings }) =>
          holdings.holdings.map((holding) => ({ chain, holding, entry: toBalanceEntry(chain, holding) })),
        )
        .filter(
          ({ entry }) => filters === undefined || (filters === "native") === (entry.address === "native"),
        )
        .filter(({ entry }) => !(excludeSpam && isSpam(entry)));
      const rowOf = new Map(rows.map((r) => [`${r.entry.chain_id}|${r.entry.address}`, r]));
      const { page, more } = pageOf(sortEntries(rows.map((r) => r.entry)), cursor, limit);
      const shaped = yield* service.entries(
        page.map((entry) => {
          const row = rowOf.get(`${entry.chain_id}|${entry.address}`)!;
          return { chain: row.chain, holding: row.holding };
        }),
        { historicalHours, metadata },
      );
      return { json: JSON.stringify(shaped), continueAfter: more ? page.at(-1) : undefined };
    });
    // Everything that shapes the page besides the snapshot; historical prices follow the clock.
    const pageQuery = JSON.stringify([fingerprint, [...metadata].sort(), limit, cursor?.after ?? null]);
    const { json, continueAfter } = yield* historicalHours.length === 0
      ? service.pages.through(snapshot, pageQuery, shape)
      : shape;
    const next =
      continueAfter !== undefined
        ? nextOffset(secret, continueAfter, {
            wallet,
            query: fingerprint,
            blocks: snapshot.byChain.map(({ chain, holdings }) => [chain.chain_id, holdings.block] as const),
            issued: cursor?.issued ?? nowSeconds,
          })
        : undefined;
    // The shaped page goes in as JSON text; the rest is small and per request.
    const rest = JSON.stringify({
      ...chainErrors(snapshot.failures, "Balances"),
      ...(warnings.length === 0 ? {} : { warnings }),
      ...(next === undefined ? {} : { next_offset: next }),
      request_time: new Date(receivedAt).toISOString(),
      response_time: new Date().toISOString(),
    });
    return {
      cu: chains.length,
      body: `{"wallet_address":${JSON.stringify(wallet)},"balances":${json},${rest.slice(1)}`,
    };
  }),
);
