import type { RpcEndpoint } from "../chains/rpc/RpcEndpoint.js";

/**
 * The `endpoint` label of each of a chain's endpoints: its masked URL, which is also what status
 * and logs show. Two endpoints of one provider with different keys mask to the same URL; the later
 * ones get ` #2`, ` #3`... in configuration order, so each keeps a series of its own instead of
 * two endpoints overwriting (or adding up in) one.
 */
export const endpointLabels = (endpoints: ReadonlyArray<RpcEndpoint>): ReadonlyArray<string> => {
  const seen = new Map<string, number>();
  return endpoints.map((endpoint) => {
    const count = (seen.get(endpoint.label) ?? 0) + 1;
    seen.set(endpoint.label, count);
    return count === 1 ? endpoint.label : `${endpoint.label} #${count}`;
  });
};
