import { errorResponse, isCall, type RpcResponse } from "./jsonRpc.js";
import type { ProviderStyle } from "./settings.js";

/** A whole-batch answer: the HTTP status and the JSON body that replace every element's reply. */
export interface BatchAnswer {
  readonly status: number;
  readonly body: RpcResponse | ReadonlyArray<RpcResponse>;
}

/** geth names the first call's id in a batch-level error, or null when there is none (rpc/handler.go). */
const firstCallId = (batch: ReadonlyArray<unknown>): unknown => {
  for (const element of batch) {
    if (isCall(element) && "id" in element) return element.id;
  }
  return null;
};

/**
 * The answer to a batch with more elements than `limit`.
 * - geth: `[{"id": <first call's id>, "error": {"code": -32600, "message": "batch too large"}}]`
 *   (rpc/handler.go respondWithBatchTooLarge; rpc/testdata/invalid-batch-toolarge.js).
 * - Erigon: the same shape since erigontech/erigon#18260 (Dec 2025; before it, a bare -32000 object),
 *   with "batch limit N exceeded (can increase by --rpc.batch.limit). Requested batch of size: M".
 * - reth (jsonrpsee reject_too_big_batch_request): one object with id null, -32010
 *   "The batch request was too large", data "Exceeded max limit of N".
 * anvil speaks geth's words here; the providers' own texts are unknown (settings reject the cap).
 */
export const batchTooLarge = (
  style: ProviderStyle,
  limit: number,
  batch: ReadonlyArray<unknown>,
): BatchAnswer => {
  switch (style) {
    case "reth":
      return {
        status: 200,
        body: errorResponse(null, {
          code: -32010,
          message: "The batch request was too large",
          data: `Exceeded max limit of ${limit}`,
        }),
      };
    case "erigon":
      return {
        status: 200,
        body: [
          errorResponse(firstCallId(batch), {
            code: -32600,
            message: `batch limit ${limit} exceeded (can increase by --rpc.batch.limit). Requested batch of size: ${batch.length}`,
          }),
        ],
      };
    default:
      return {
        status: 200,
        body: [errorResponse(firstCallId(batch), { code: -32600, message: "batch too large" })],
      };
  }
};

/**
 * geth and Erigon answer `[]` with one object, not an array: -32600 "empty batch"
 * (rpc/testdata/invalid-batch.js). Others: undefined, the empty batch goes upstream as it came.
 */
export const emptyBatch = (style: ProviderStyle): BatchAnswer | undefined =>
  style === "geth" || style === "erigon"
    ? { status: 200, body: errorResponse(null, { code: -32600, message: "empty batch" }) }
    : undefined;

/**
 * The reply to a batch element that is not a call (a number, null, an object without a method):
 * geth "invalid request", jsonrpsee and anvil "Invalid request", -32600 with id null either way.
 */
export const invalidElement = (style: ProviderStyle): RpcResponse =>
  errorResponse(null, {
    code: -32600,
    message: style === "reth" || style === "anvil" ? "Invalid request" : "invalid request",
  });
