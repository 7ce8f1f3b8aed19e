import { Effect, Either } from "effect";
import { Balances } from "../../balances/Balances.js";
import { parseHistoricalPrices, parseMetadata } from "../../balances/parseBalancesQuery.js";
import type { TokenStandard } from "../../balances/tokenStandard.js";
import { Chains } from "../../chains/Chains.js";
import { selectChains } from "../../chains/selectChains.js";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { tokenBalance } from "../../contracts/Balances.js";
import { ApiSettings } from "../ApiSettings.js";
import { askedBlock, askedHeight, blockFields, pinnedTo } from "../askedBlock.js";
import { route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";

const orFail = <A>(result: Either.Either<A, { code: string; message: string }>) =>
  Either.isLeft(result) ? Effect.fail(new InvalidRequest(result.left)) : Effect.succeed(result.right);

/** How a contract that is not an ERC-20 is described, or undefined for an ERC-20. */
const notAnErc20 = (standard: TokenStandard): string | undefined => {
  switch (standard) {
    case "erc20":
      return undefined;
    case "erc721":
      return "is an ERC-721 (NFT) contract, not an ERC-20 token,";
    case "erc1155":
      return "is an ERC-1155 (multi-token) contract, not an ERC-20 token,";
    case "no_balance_of":
      return "does not answer the ERC-20 balanceOf(address) (no token contract there at the block read)";
  }
};

/**
 * GET /v1/evm/balances/{address}/token/{token_address}: one token (or `native`)
 * on exactly one chain, read at the chain's indexed block (or at `block_number`,
 * which the answer then names); a wallet holding none gets its entry with amount
 * "0". A contract that is not an ERC-20 (an NFT contract, or no token at all) is a
 * 400, found by probes in the same multicall as the balance. 1 CU.
 */
export const tokenBalanceRoute = route(tokenBalance, ({ params, query }) =>
  Effect.gen(function* () {
    const registry = yield* Chains;
    const config = yield* ApiSettings;
    const service = yield* Balances;
    const { receivedAt } = yield* RequestContext;

    if (query.chain_ids === undefined) {
      return yield* new InvalidRequest({
        code: "INVALID_CHAIN_IDS",
        message: "chain_ids is required here and must name exactly one chain.",
      });
    }
    const selected = yield* selectChains(registry, "balances", query.chain_ids, "Balances", config.publicUrl);
    const { chains, unsupported, warnings } = selected;
    if (chains.length + unsupported.length !== 1) {
      return yield* new InvalidRequest({
        code: "INVALID_CHAIN_IDS",
        message: `chain_ids must name exactly one chain here (it names ${chains.length + unsupported.length}).`,
      });
    }
    const height = yield* askedHeight(query.block_number, selected, true);
    const metadata = yield* orFail(parseMetadata(query.metadata));
    const historicalHours = yield* orFail(parseHistoricalPrices(query.historical_prices));
    const chain = chains[0];
    const base = {
      wallet_address: params.address,
      ...(warnings.length === 0 ? {} : { warnings }),
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
    const asked = yield* askedBlock(height, service.pastBlock);
    const snapshot = yield* service.snapshot(params.address, [chain], {
      only: { chainId: chain.chain_id, token },
      ...(asked === undefined ? {} : { pinned: pinnedTo(asked) }),
    });
    const read = snapshot.byChain[0]?.holdings;
    const notErc20 = read?.classified === undefined ? undefined : notAnErc20(read.classified);
    if (notErc20 !== undefined) {
      return yield* new InvalidRequest({
        code: "NOT_AN_ERC20_TOKEN",
        message: `token_address ${token} ${notErc20} on chain ${chain.chain_id}; this route reads ERC-20 tokens and "native".`,
      });
    }
    const holding = read?.holdings.find((h) => h.address === token);
    const shaped =
      holding === undefined
        ? { entries: [], warnings: [] }
        : yield* service.entries([{ chain, holding }], {
            historicalHours,
            metadata,
            ...(asked === undefined ? {} : { pricesBefore: asked.block.timestamp }),
          });
    return {
      cu: 1,
      body: {
        ...base,
        balances: shaped.entries,
        ...(asked === undefined ? {} : blockFields(asked)),
        ...(shaped.warnings.length === 0 ? {} : { warnings: [...(base.warnings ?? []), ...shaped.warnings] }),
        request_time: new Date(receivedAt).toISOString(),
        response_time: new Date().toISOString(),
      },
    };
  }),
);
