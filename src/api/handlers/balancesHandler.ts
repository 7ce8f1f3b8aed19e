import { Effect, Either } from "effect";
import { AppConfig } from "../../AppConfig.js";
import { Balances, isSpam, sortEntries } from "../../balances/Balances.js";
import type { Holding } from "../../balances/ChainHoldings.js";
import { CursorSecret } from "../../balances/CursorSecret.js";
import { CURSOR_TTL_SECONDS, decodeCursor, encodeCursor } from "../../balances/pageCursor.js";
import {
  parseBoolean,
  parseFilters,
  parseHistoricalPrices,
  parseLimit,
  parseMetadata,
} from "../../balances/parseBalancesQuery.js";
import { compareEntries, toBalanceEntry } from "../../balances/toBalanceEntry.js";
import { Chains } from "../../chains/Chains.js";
import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { parseChainIds } from "../../chains/parseChainIds.js";
import { unsupportedChainsWarning } from "../../chains/unsupportedChainsWarning.js";
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
    const registry = yield* Chains;
    const config = yield* AppConfig;
    const service = yield* Balances;
    const secret = yield* CursorSecret;
    const { receivedAt } = yield* RequestContext;
    const wallet = params.address;

    const selection = parseChainIds(registry, "balances", query.chain_ids);
    if (Either.isLeft(selection))
      return yield* new InvalidRequest({ code: "INVALID_CHAIN_IDS", message: selection.left.message });
    const { chains, unsupported } = selection.right;
    const filters = yield* orFail(parseFilters(query.filters));
    const metadata = yield* orFail(parseMetadata(query.metadata));
    const excludeSpam = yield* orFail(parseBoolean("exclude_spam_tokens", query.exclude_spam_tokens));
    const historicalHours = yield* orFail(parseHistoricalPrices(query.historical_prices));
    const limit = yield* orFail(parseLimit(query.limit));
    const fingerprint = JSON.stringify([chains.map((c) => c.chain_id), filters ?? "", excludeSpam]);

    const nowSeconds = Math.floor(receivedAt / 1000);
    const cursor = query.offset === undefined ? undefined : decodeCursor(secret, query.offset);
    if (
      query.offset !== undefined &&
      (cursor === undefined || cursor.wallet !== wallet || cursor.query !== fingerprint)
    ) {
      return yield* new InvalidRequest({
        code: "INVALID_OFFSET",
        message: "offset is not a next_offset this service returned for this wallet and these parameters.",
      });
    }
    if (cursor !== undefined && nowSeconds - cursor.issued > CURSOR_TTL_SECONDS) {
      return yield* new InvalidRequest({
        code: "STALE_OFFSET",
        message: "offset has expired; start again without it.",
      });
    }

    const snapshot = yield* service.snapshot(
      wallet,
      chains,
      cursor === undefined ? undefined : new Map(cursor.blocks),
    );
    const chainOf = new Map<number, ChainConfig>(chains.map((c) => [c.chain_id, c]));
    const rows = snapshot.byChain
      .flatMap(({ chain, holdings }) =>
        holdings.holdings.map((holding) => ({ chain, holding, entry: toBalanceEntry(chain, holding) })),
      )
      .filter(({ entry }) =>
        filters === undefined
          ? true
          : filters === "native"
            ? entry.address === "native"
            : entry.address !== "native",
      )
      .filter(({ entry }) => !(excludeSpam && isSpam(entry)));
    const sorted = sortEntries(rows.map((r) => r.entry));
    const rowOf = new Map(rows.map((r) => [`${r.entry.chain_id}|${r.entry.address}`, r]));
    const after =
      cursor === undefined
        ? 0
        : sorted.findIndex(
            (entry) =>
              compareEntries(entry, {
                chain: "",
                chain_id: cursor.after[1],
                address: cursor.after[2],
                amount: "0",
                ...(cursor.after[0] === null ? {} : { value_usd: cursor.after[0] }),
              }) > 0,
          );
    const start = after === -1 ? sorted.length : after;
    const page = sorted.slice(start, start + limit);
    const items = page.map((entry) => {
      const row = rowOf.get(`${entry.chain_id}|${entry.address}`)!;
      return { chain: chainOf.get(entry.chain_id)!, holding: row.holding as Holding };
    });
    const shaped = yield* service.entries(items, { historicalHours, metadata });
    const last = page.at(-1);
    const nextOffset =
      last !== undefined && start + limit < sorted.length
        ? encodeCursor(secret, {
            wallet,
            query: fingerprint,
            blocks: snapshot.byChain.map(({ chain, holdings }) => [chain.chain_id, holdings.block] as const),
            after: [last.value_usd ?? null, last.chain_id, last.address],
            issued: cursor?.issued ?? nowSeconds,
          })
        : undefined;
    const warning = unsupportedChainsWarning(unsupported, "Balances", config.publicUrl);
    return {
      cu: chains.length,
      body: {
        wallet_address: wallet,
        balances: shaped,
        ...(snapshot.failures.length === 0
          ? {}
          : {
              errors: {
                error_message: "Some chains could not be read; their balances are missing.",
                chain_errors: snapshot.failures,
              },
            }),
        ...(warning === undefined ? {} : { warnings: [warning] }),
        ...(nextOffset === undefined ? {} : { next_offset: nextOffset }),
        request_time: new Date(receivedAt).toISOString(),
        response_time: new Date().toISOString(),
      },
    };
  }),
);
