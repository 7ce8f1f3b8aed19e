import { errorResponse, type RpcErrorObject } from "./jsonRpc.js";
import type { ProviderStyle } from "./settings.js";

/** What the refusal of a request over the rate budget may tell about the budget. */
export interface RateState {
  readonly retryAfterSeconds: number;
  readonly currentRps: number;
  readonly allowedRps: number;
}

/** A whole HTTP request refused for its rate. */
export interface RateLimitedRequest {
  readonly status: 429;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const ALCHEMY_CAPACITY: RpcErrorObject = {
  code: 429,
  message:
    "Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput",
};

const QUICKNODE_RPS: RpcErrorObject = {
  code: 429,
  message: "The requests per second (RPS) of your requests are higher than your plan allows.",
};

/**
 * The error a batch element over budget carries while the rest of the batch is answered, for the
 * providers that refuse per element: Alchemy (in-body code 429, text as latticexyz/mud#1522 quotes it)
 * and QuickNode ("a batch with 26 requests while your RPS is 25 will result in 25 valid responses and
 * one error", support.quicknode.com 429-Errors-Explained). Undefined: the style refuses whole requests.
 */
export const rateLimitedElement = (style: ProviderStyle): RpcErrorObject | undefined => {
  if (style === "alchemy") return ALCHEMY_CAPACITY;
  if (style === "quicknode") return QUICKNODE_RPS;
  return undefined;
};

const json = (id: unknown, error: RpcErrorObject): string => JSON.stringify(errorResponse(id, error));

/**
 * The HTTP 429 for a whole request (`id` null for a batch).
 * - Infura: -32005 "project ID request rate exceeded" with data {see, current_rps, allowed_rps,
 *   backoff_seconds} as docs.infura.io "Avoid rate limiting" shows it (INFURA/infura#201 saw the three
 *   numbers nested under `data.rate` on the wire). Retry-After mirrors backoff_seconds; no source says
 *   Infura sends it.
 * - Alchemy: in-body 429 with Retry-After (docs.alchemy.com throughput: "Retry-After header in the HTTP
 *   response").
 * - QuickNode: in-body 429, no Retry-After documented.
 * - Nodes limit no rate themselves; what answers is a fronting proxy: plain "Too Many Requests".
 */
export const rateLimitedRequest = (
  style: ProviderStyle,
  id: unknown,
  state: RateState,
): RateLimitedRequest => {
  const retryAfter = { "retry-after": String(state.retryAfterSeconds) };
  switch (style) {
    case "infura":
      return {
        status: 429,
        headers: { ...retryAfter, "content-type": "application/json" },
        body: json(id, {
          code: -32005,
          message: "project ID request rate exceeded",
          data: {
            see: "https://infura.io/docs/ethereum/jsonrpc/ratelimits",
            current_rps: state.currentRps,
            allowed_rps: state.allowedRps,
            backoff_seconds: state.retryAfterSeconds,
          },
        }),
      };
    case "alchemy":
      return {
        status: 429,
        headers: { ...retryAfter, "content-type": "application/json" },
        body: json(id, ALCHEMY_CAPACITY),
      };
    case "quicknode":
      return { status: 429, headers: { "content-type": "application/json" }, body: json(id, QUICKNODE_RPS) };
    default:
      return {
        status: 429,
        headers: { ...retryAfter, "content-type": "text/plain" },
        body: "Too Many Requests\n",
      };
  }
};
