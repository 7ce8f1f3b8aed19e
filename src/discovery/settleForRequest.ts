import type { ChainConfig } from "../chains/ChainsConfig.js";
import { headOfNodes } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { DiscoveryProgress } from "./DiscoveryProgress.js";
import type { DiscoveryNeed, WalletDiscovery } from "./WalletDiscovery.js";

const NODES_FAILING = "its RPC nodes are failing, so this wallet's tokens and positions cannot be found";

/**
 * A request's wait for the wallet's discovery on a chain before it reads there: up to `waitMs`
 * for what it needs of the sweep (`need`), none when the chain's nodes are known to be failing.
 * Rejects, so the request names the chain in its errors, when what the wallet holds there cannot
 * be known: its first sweep failed, or is still running while the nodes fail. A read of a wallet
 * with nothing indexed asks the nodes nothing, so an empty answer is only trusted once they
 * answered. Answers the progress as it stood before the read, for the answer's warnings.
 */
export const settleForRequest = async (
  discovery: Pick<WalletDiscovery, "settle">,
  chain: ChainConfig,
  wallet: string,
  client: ChainRpc | undefined,
  waitMs: number,
  need: DiscoveryNeed,
): Promise<DiscoveryProgress> => {
  if (client === undefined) throw new Error("no RPC client for this chain");
  const failing = client.failing();
  const progress = await discovery.settle(chain, wallet, failing ? 0 : waitMs, need);
  if (progress.state === "failed")
    throw new Error(
      `finding this wallet's tokens and positions failed (${progress.error ?? "unknown"}); retry shortly`,
    );
  if (progress.state === "sweeping" || progress.state === "not_started") {
    if (failing) throw new Error(NODES_FAILING);
    await headOfNodes(client).catch(() => {
      throw new Error(NODES_FAILING);
    });
  }
  return progress;
};
