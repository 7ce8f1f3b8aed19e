import { createHash } from "node:crypto";
import { balanceOfCall, NATIVE_CURRENCY } from "../../src/chains/balanceReads.js";
import { aggregate3, type RawCall } from "../../src/chains/multicall3.js";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";

/**
 * The balance of every devnet token and the native one for every named wallet of `chain` (about
 * 290 calls): one multicall the size of a balances read of a wallet with a few hundred tokens.
 */
export const walletBalanceCalls = (chain: ManifestChain): ReadonlyArray<RawCall> => {
  const tokens = [NATIVE_CURRENCY, ...Object.values(chain.tokens).map((token) => token.address)];
  return Object.values(chain.wallets).flatMap((wallet) =>
    tokens.map((token) => balanceOfCall(token, wallet)),
  );
};

/**
 * One balances-style read: `calls` in one aggregate3 at `block`, as the balances path sends it;
 * resolves with a digest of the answers, so reads through a proxy can be checked against direct ones.
 */
export const readBalances = async (
  rpc: ChainRpc,
  calls: ReadonlyArray<RawCall>,
  block: number,
): Promise<string> => {
  const results = await aggregate3(rpc, calls, { block: { number: block } });
  const digest = createHash("sha256");
  for (const result of results) digest.update(`${result.success}:${result.returnData}\n`);
  return digest.digest("hex").slice(0, 16);
};
