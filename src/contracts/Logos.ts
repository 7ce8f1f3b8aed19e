import { Schema } from "effect";
import { Address, NoQuery } from "./Common.js";
import { endpoint } from "./Endpoint.js";

const ChainIdSegment = Schema.String.pipe(
  Schema.pattern(/^[1-9][0-9]{0,15}$/, { message: () => "must be a numeric chain id" }),
);

const LogoImage = Schema.String.annotations({ description: "An image (SVG)." });

export const tokenLogo = endpoint({
  operationId: "getTokenLogo",
  method: "GET",
  path: "/beta/token/logo/{chain_id}/{token_address}",
  subject: "svc.beta.token.logo.get",
  auth: "public",
  group: "logos",
  summary: "A token's logo: the configured one, or an image generated from its symbol. Public and cacheable.",
  params: Schema.Struct({ chain_id: ChainIdSegment, token_address: Address }),
  query: NoQuery,
  body: undefined,
  response: LogoImage,
  responseContentType: "image/svg+xml",
});

export const nativeLogo = endpoint({
  operationId: "getNativeLogo",
  method: "GET",
  path: "/beta/token/logo/{chain_id}",
  subject: "svc.beta.token.logo.native.get",
  auth: "public",
  group: "logos",
  summary: "The logo of a chain's native asset. Public and cacheable.",
  params: Schema.Struct({ chain_id: ChainIdSegment }),
  query: NoQuery,
  body: undefined,
  response: LogoImage,
  responseContentType: "image/svg+xml",
});
