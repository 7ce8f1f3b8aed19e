import { Effect } from "effect";
import { Chains } from "../../chains/Chains.js";
import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { NotFound } from "../../contracts/ApiError.js";
import { nativeLogo, tokenLogo } from "../../contracts/Logos.js";
import { Index } from "../../indexer/IndexReader.js";
import { etagOf, generatedLogo } from "../../logos/generatedLogo.js";
import { route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";

const CACHE = "public, max-age=86400";

const chainOf = (chainId: string) =>
  Effect.gen(function* () {
    const chain = (yield* Chains).byId.get(Number(chainId));
    if (chain === undefined)
      return yield* new NotFound({ code: "NOT_FOUND", message: `Chain ${chainId} is not served here.` });
    return chain;
  });

/** A configured logo is a redirect to it; otherwise the generated image, with an ETag (304 when it matches). */
const answer = (chain: ChainConfig, key: string, symbol: string | null) =>
  Effect.gen(function* () {
    const configured = chain.logos[key];
    if (configured !== undefined) {
      return { cu: 0, status: 302, body: "", headers: { Location: configured, "Cache-Control": CACHE } };
    }
    const svg = generatedLogo(`${chain.chain_id}:${key}`, symbol);
    const etag = etagOf(svg);
    const { ifNoneMatch } = yield* RequestContext;
    if (ifNoneMatch === etag)
      return { cu: 0, status: 304, body: "", headers: { ETag: etag, "Cache-Control": CACHE } };
    return { cu: 0, body: svg, headers: { ETag: etag, "Cache-Control": CACHE } };
  });

/** GET /beta/token/logo/{chain_id}/{token_address}: public, cacheable. */
export const tokenLogoRoute = route(tokenLogo, ({ params }) =>
  Effect.gen(function* () {
    const chain = yield* chainOf(params.chain_id);
    const index = (yield* Index).reader;
    // The symbol only labels the generated logo: when the index cannot be read now, it goes without.
    const [metadata] = yield* Effect.promise(() =>
      index.tokenMetadata(chain.chain_id, [params.token_address]).catch(() => [undefined]),
    );
    return yield* answer(chain, params.token_address, metadata?.symbol ?? null);
  }),
);

/** GET /beta/token/logo/{chain_id}: the native asset's logo. */
export const nativeLogoRoute = route(nativeLogo, ({ params }) =>
  Effect.gen(function* () {
    const chain = yield* chainOf(params.chain_id);
    return yield* answer(chain, "native", chain.native.symbol);
  }),
);
