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
import { balances } from "../../contracts/Balances.js";
import { answeringAbout } from "../../discovery/Discovery.js";
import { discoveryWarnings } from "../../discovery/discoveryWarnings.js";
import { Index } from "../../indexer/IndexReader.js";
import { ApiSettings } from "../ApiSettings.js";
import { askedBlock, askedHeight, blockFields, pinnedTo } from "../askedBlock.js";
import { route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";
import { balancesReplayKey, keptReply } from "./balancesReplies.js";

const orFail = <A>(result: Either.Either<A, { code: string; message: string }>) =>
  Either.isLeft(result) ? Effect.fail(new InvalidRequest(result.left)) : Effect.succeed(result.right);

/**
 * GET /v1/evm/balances/{address}: every parameter of spec 4.5, sorted by value,
 * paged with a signed cursor that pins each chain's block. 1 CU per chain served.
 * A first page read at every chain's indexed head, without historical prices, is
 * kept for the runner to send again (with new times and cursor) until any of those
 * chains indexes another block. With `block_number` (one chain only) the answer is as of
 * that block, which it names; its cursors page through that block and no other.
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

      const selected = yield* selectChains(
        yield* Chains,
        "balances",
        query.chain_ids,
        "Balances",
        config.publicUrl,
      );
      const { chains, warnings } = selected;
      const height = yield* askedHeight(query.block_number, selected, query.chain_ids !== undefined);
      const filters = yield* orFail(parseFilters(query.filters));
      const metadata = yield* orFail(parseMetadata(query.metadata));
      const excludeSpam = yield* orFail(parseBoolean("exclude_spam_tokens", query.exclude_spam_tokens));
      const historicalHours = yield* orFail(parseHistoricalPrices(query.historical_prices));
      const limit = yield* orFail(parseLimit(query.limit));
      // A cursor serves only the query (and the block) it was issued for.
      const fingerprint = JSON.stringify([
        chains.map((c) => c.chain_id),
        filters ?? "",
        excludeSpam,
        ...(height === undefined ? [] : [height.number]),
      ]);
      const nowSeconds = Math.floor(receivedAt / 1000);
      const cursor = yield* orFail(
        readOffset(secret, query.offset, { wallet, query: fingerprint, nowSeconds }),
      );

      const asked = yield* askedBlock(height, service.pastBlock);
      // A chain that could not be read for the listing's first page has no block in its cursor:
      // read now, at its head, its entries would be sorted into pages that went past them. It
      // stays out of the listing, and every page says so.
      const listed = cursor === undefined ? undefined : new Set(cursor.blocks.map(([chainId]) => chainId));
      const unlisted = listed === undefined ? [] : chains.filter((chain) => !listed.has(chain.chain_id));
      const snapshot = yield* service.snapshot(
        wallet,
        listed === undefined ? chains : chains.filter((chain) => listed.has(chain.chain_id)),
        asked !== undefined
          ? { pinned: pinnedTo(asked) }
          : cursor === undefined
            ? {}
            : {
                pinned: new Map(cursor.blocks.map(([chainId, number]) => [chainId, { number }])),
                pinnedBy: "offset",
              },
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
          {
            historicalHours,
            metadata,
            ...(asked === undefined ? {} : { pricesBefore: asked.block.timestamp }),
          },
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
        ...(asked === undefined ? {} : blockFields(asked)),
        ...chainErrors(
          [
            ...snapshot.failures,
            ...unlisted.map((chain) => ({
              chain_id: chain.chain_id,
              description: `Balances could not be read on this chain when this listing began, so its entries are not in it; ask again without offset to include them.`,
            })),
          ],
          "Balances",
        ),
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
