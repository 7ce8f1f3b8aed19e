import { Schema } from "effect";

/** An EVM address as given by a caller (any case); decodes to lower case. */
export const Address = Schema.String.pipe(
  Schema.pattern(/^0x[0-9a-fA-F]{40}$/, {
    message: () => "must be an EVM address: 0x followed by 40 hex digits",
  }),
  Schema.compose(Schema.Lowercase),
  Schema.annotations({ examples: ["0xd8da6bf26964af9d7eed9e03e53415d37aa96045"] }),
);

/** An address or the literal `native` (the chain's native asset). */
export const TokenAddressOrNative = Schema.Union(Schema.Literal("native"), Address);

/** `chain_ids` query parameter: numeric ids and/or tags, comma-separated (see parseChainIds). */
export const ChainIdsParam = Schema.String.annotations({
  description:
    "Numeric chain ids and/or tags, one value or comma-separated; tags are OR-ed. Chain names are rejected. Omitted: the chains tagged `default`.",
  examples: ["1,8453", "mainnet"],
});

/** `block_number` query parameter: a height on the one chain of the request (see parseBlockNumber). */
export const BlockNumberParam = Schema.optional(
  Schema.String.annotations({
    description:
      "Answer as of this block: a height in decimal digits on the one chain `chain_ids` must then name (several chains are a 400). Above the chain's indexed head, or older than the oldest block whose state its RPC nodes keep, it is a 400 naming the blocks that can be read. Omitted: the indexed head.",
    examples: ["19000000"],
  }),
);

/** The fields of an answer given as of a block asked for (`block_number`). */
export const BlockNumberResponse = Schema.Struct({
  block_number: Schema.optional(
    Schema.Int.annotations({
      description: "The block the answer is as of; present when `block_number` was given.",
    }),
  ),
  block_time: Schema.optional(
    Schema.String.annotations({
      description: "That block's time, ISO 8601 in UTC (e.g. `2026-11-14T09:47:01.000Z`).",
    }),
  ),
});

/** Non-fatal issue attached to a 200 response (spec 2.4). */
export class Warning extends Schema.Class<Warning>("Warning")({
  code: Schema.String,
  message: Schema.String,
  chain_ids: Schema.optional(Schema.Array(Schema.Int)),
  docs_url: Schema.optional(Schema.String),
}) {}

/** JSON body of every error response. */
export class ErrorResponse extends Schema.Class<ErrorResponse>("ErrorResponse")({
  error: Schema.String,
  code: Schema.String,
}) {}

/** No path parameters. */
export const NoParams = Schema.Struct({});
/** No query parameters (unknown ones are ignored). */
export const NoQuery = Schema.Struct({});
