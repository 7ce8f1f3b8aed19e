import { Effect } from "effect";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { Warning } from "../contracts/Common.js";
import type { Holding } from "./ChainHoldings.js";
import { decorateEntry, type MetadataField, type ResponseEntry } from "./decorateEntry.js";
import type { HistoricalPrices } from "./historicalPrices.js";
import { pastPriceWarnings, readPastPrices } from "./pastPrices.js";
import { toBalanceEntry } from "./toBalanceEntry.js";

export interface EntryOptions {
  readonly historicalHours: ReadonlyArray<number>;
  readonly metadata: ReadonlySet<MetadataField>;
  /** Unix seconds the `historicalHours` count back from: the read block's time, or now when omitted. */
  readonly pricesBefore?: number;
}

/** What shaping entries reads: past prices, how far back each chain's nodes keep state, and the base URL of links. */
export interface EntryShaperDeps {
  readonly history: HistoricalPrices;
  readonly stateFrom: (chainId: number) => number | undefined;
  readonly publicUrl: string;
}

/**
 * Holdings shaped as response entries (spec 2.2): prices, metadata fields as asked, and
 * `historical_prices` at each offset, read for the tokens of the page only, one lookup per
 * (chain, offset); offsets no chain could price come back as warnings.
 */
export const makeEntryShaper = ({ history, stateFrom, publicUrl }: EntryShaperDeps) => {
  const priceKey = (chain: ChainConfig, holding: Holding) =>
    holding.address === "native" ? chain.wrapped_native : holding.address;

  return (
    items: ReadonlyArray<{ readonly chain: ChainConfig; readonly holding: Holding }>,
    options: EntryOptions,
  ): Effect.Effect<{
    readonly entries: ReadonlyArray<ResponseEntry>;
    readonly warnings: ReadonlyArray<Warning>;
  }> =>
    Effect.promise(async () => {
      // One price lookup per (chain, offset), for the tokens of this page only.
      const tokensByChain = new Map<number, { chain: ChainConfig; tokens: Set<string> }>();
      for (const { chain, holding } of items) {
        const token = priceKey(chain, holding);
        if (token === undefined) continue;
        const group = tokensByChain.get(chain.chain_id) ?? { chain, tokens: new Set<string>() };
        group.tokens.add(token);
        tokensByChain.set(chain.chain_id, group);
      }
      const past =
        options.historicalHours.length === 0
          ? {
              byToken: new Map<string, ReadonlyArray<{ offset_hours: number; price_usd: number }>>(),
              gaps: [],
            }
          : await readPastPrices(
              history,
              [...tokensByChain.values()].map(({ chain, tokens }) => ({ chain, tokens: [...tokens] })),
              options.historicalHours,
              {
                nowSeconds: options.pricesBefore ?? Math.floor(Date.now() / 1000),
                stateFrom,
              },
            );
      const shaped = items.map(({ chain, holding }) => {
        const base = decorateEntry(
          toBalanceEntry(chain, holding),
          chain,
          holding.price,
          options.metadata,
          publicUrl,
        );
        if (options.historicalHours.length === 0) return base;
        const token = priceKey(chain, holding);
        const points = token === undefined ? [] : (past.byToken.get(`${chain.chain_id}|${token}`) ?? []);
        // Request order, whatever order they were computed in.
        const ordered = options.historicalHours.flatMap((h) => points.filter((p) => p.offset_hours === h));
        return { ...base, historical_prices: ordered };
      });
      return { entries: shaped, warnings: pastPriceWarnings(past.gaps, publicUrl) };
    });
};
