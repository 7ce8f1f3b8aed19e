import { Effect, Either } from "effect";
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
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { chainErrors } from "../../chains/readEachChain.js";
import { selectChains } from "../../chains/selectChains.js";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { BalancesQuery, balances } from "../../contracts/Balances.js";
import type { RequestEnvelope } from "../../contracts/Envelope.js";
import { answeringAbout } from "../../discovery/Discovery.js";
import { discoveryWarnings } from "../../discovery/discoveryWarnings.js";
import { Index } from "../../indexer/IndexReader.js";
import { ApiSettings } from "../ApiSettings.js";
import { type KeptReply, route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";

const orFail = <A>(result: Either.Either<A, { code: string; message: string }>) =>
  Either.isLeft(result) ? Effect.fail(new InvalidRequest(result.left)) : Effect.succeed(result.right);

const encoder = new TextEncoder();
const QUERY_FIELDS = Object.keys(BalancesQuery.fields);

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A balances request as sent (the address as given, every query parameter the endpoint reads),
 * so that a repeated request is answered from its kept reply. Requests whose answer follows the
 * clock are left to the handler: a cursor (`offset`, which expires) and `historical_prices`.
 * Anything but strings is left to the handler too, which refuses it.
 */
export const balancesReplayKey = (envelope: RequestEnvelope): string | undefined => {
  const { params, query } = envelope as { params?: unknown; query?: unknown };
  if (!isObject(params) || typeof params.address !== "string") return undefined;
  if (query !== undefined && query !== null && !isObject(query)) return undefined;
  const values: Array<string | null> = [params.address];
  for (const name of QUERY_FIELDS) {
    const value = query?.[name];
    if (value === undefined) values.push(null);
    else if (typeof value !== "string" || name === "offset" || name === "historical_prices") return undefined;
    else values.push(value);
  }
  return JSON.stringify(values);
};

/**
 * GET /v1/evm/balances/{address}: every parameter of spec 4.5, sorted by value,
 * paged with a signed cursor that pins each chain's block. 1 CU per chain served.
 * A first page read at every chain's indexed head, without historical prices, is
 * kept for the runner to send again (with new times and cursor) until any of those
 * chains indexes another block.
 */
export const balancesRoute = route(
  balances,
  ({ params, query }) =>
    Effect.gen(function* () {
      const config = yield* ApiSettings;
      const service = yield* Balances;
      const secret = yield* CursorSecret;
      const { receivedAt } = yield* RequestContext;
      const checkpoints = (yield* Index).cache.checkpoints;
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
        return {
          json: JSON.stringify(shaped.entries),
          continueAfter: more ? page.at(-1) : undefined,
          pastPriceWarnings: shaped.warnings,
        };
      });
      // Everything that shapes the page besides the snapshot; historical prices follow the clock.
      const pageQuery = JSON.stringify([fingerprint, [...metadata].sort(), limit, cursor?.after ?? null]);
      const { json, continueAfter, pastPriceWarnings } = yield* historicalHours.length === 0
        ? service.pages.through(snapshot, pageQuery, shape)
        : shape;
      const blocks = snapshot.byChain.map(({ chain, holdings }) => [chain.chain_id, holdings.block] as const);
      // The shaped page goes in as JSON text; the rest is small, and what follows the clock is per request.
      const clients = yield* ChainClients;
      const progress = snapshot.byChain.map(({ chain, progress }) => ({ chain, progress }));
      const partial = discoveryWarnings(
        progress,
        (chainId) => clients.get(chainId)?.capabilities().logsFrom,
        "Balances",
        config.publicUrl,
      );
      const allWarnings = [...warnings, ...pastPriceWarnings, ...partial];
      const fixed = JSON.stringify({
        ...chainErrors(snapshot.failures, "Balances"),
        ...(allWarnings.length === 0 ? {} : { warnings: allWarnings }),
      });
      const head = `{"wallet_address":${JSON.stringify(wallet)},"balances":${json},${fixed === "{}" ? "" : `${fixed.slice(1, -1)},`}`;
      const tail = (at: number) => {
        const next =
          continueAfter !== undefined
            ? nextOffset(secret, continueAfter, {
                wallet,
                query: fingerprint,
                blocks,
                issued: cursor?.issued ?? Math.floor(at / 1000),
              })
            : undefined;
        return `${next === undefined ? "" : `"next_offset":${JSON.stringify(next)},`}"request_time":"${new Date(at).toISOString()}","response_time":"${new Date().toISOString()}"}`;
      };
      // Exact while every chain's indexed head is the one this snapshot was read at: a new block
      // (or a reorg) replaces the chain's checkpoint object.
      const marks = snapshot.byChain.map(({ chain }) => checkpoints.get(chain.chain_id));
      const keepable =
        cursor === undefined &&
        historicalHours.length === 0 &&
        snapshot.failures.length === 0 &&
        // An answer read while discovery runs is outgrown by its next write: never kept.
        progress.every(
          ({ progress }) =>
            progress.state === "not_needed" ||
            (progress.state === "complete" && progress.registry === undefined),
        ) &&
        snapshot.byChain.every(({ holdings }, i) => marks[i]?.number === holdings.block);
      return {
        cu: chains.length,
        body: head + tail(receivedAt),
        ...(keepable
          ? {
              keep: keptReply(head, tail, () =>
                snapshot.byChain.every(({ chain }, i) => checkpoints.get(chain.chain_id) === marks[i]),
              ),
            }
          : {}),
      };
    }).pipe(answeringAbout(params.address, "tokens")),
  { replayKey: balancesReplayKey },
);

/** The kept reply: the head encoded once, the per-request tail after it. */
const keptReply = (head: string, tail: (at: number) => string, fresh: () => boolean): KeptReply => {
  const headBytes = encoder.encode(head);
  return {
    fresh,
    body: (at) => {
      const end = encoder.encode(tail(at));
      const bytes = new Uint8Array(headBytes.length + end.length);
      bytes.set(headBytes);
      bytes.set(end, headBytes.length);
      return bytes;
    },
    bytes: headBytes.length + 256,
  };
};
