import { createPublicClient, createWalletClient, custom, type Hash, http } from "viem";
import { type ActivityContext, activityContext } from "../../src/devnet/activity/ActivityContext.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";

const SENDS = new Set(["eth_sendTransaction", "eth_sendRawTransaction"]);

/**
 * Devnet activity whose transactions are stamped when they were mined: anvil mines each
 * transaction as it is sent (automine) and answers the send once the block exists, so the time the
 * answer comes back is when the block could first be seen. Stamping before the action instead
 * counted its preparation (reads, gas estimates, approvals) as latency.
 */
export const stampedActivity = (chain: ManifestChain) => {
  const minedAt = new Map<Hash, number>();
  const base = http(chain.rpc_url, { batch: false, retryCount: 0 })({});
  const transport = custom({
    request: async ({ method, params }: { method: string; params?: unknown }) => {
      const answer = await base.request({ method, params } as never);
      if (SENDS.has(method)) minedAt.set(answer as Hash, performance.now());
      return answer;
    },
  });
  const ctx = activityContext(chain);
  const viemChain = ctx.client.publicClient.chain;
  const publicClient = createPublicClient({ chain: viemChain, transport, pollingInterval: 50 });
  const walletClient = createWalletClient({ chain: viemChain, transport });
  const stamped: ActivityContext = {
    ...ctx,
    client: {
      ...ctx.client,
      publicClient,
      walletClient,
      rpc: (method, params) =>
        publicClient.request({ method: method as "eth_chainId", params: params as never }),
    },
  };
  return { ctx: stamped, minedAt: (hash: Hash) => minedAt.get(hash) } as const;
};
