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
