import type { ServerResponse } from "node:http";

/**
 * The route template each response answers (`/v1/evm/balances/{address}`), set
 * by the gateway once it knows it and read by the metrics when the response
 * ends; a response without one (an unknown path, a malformed request) is
 * counted as `unmatched`.
 */
export const routeLabels = new WeakMap<ServerResponse, string>();
