import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A copy of a chains file with some chains' endpoints replaced (by a counting, failing or
 * provider-emulating proxy): one URL becomes the chain's `rpc_url`, several its `rpc_urls` (the
 * first is the primary). `extra` adds or replaces other fields per chain (`rpc` limits, say).
 */
export const rewriteChainsFile = async (
  path: string,
  rpcByChain: ReadonlyMap<number, string | ReadonlyArray<string>>,
  extra: ReadonlyMap<number, Record<string, unknown>> = new Map(),
) => {
  const file = JSON.parse(await readFile(path, "utf8")) as {
    chains: Array<{ chain_id: number; rpc_url?: string; rpc_urls?: ReadonlyArray<string>; ws_url?: string }>;
  };
  for (const chain of file.chains) {
    const rpc = rpcByChain.get(chain.chain_id);
    if (typeof rpc === "string") chain.rpc_url = rpc;
    else if (rpc !== undefined) {
      delete chain.rpc_url;
      chain.rpc_urls = rpc;
    }
    Object.assign(chain, extra.get(chain.chain_id) ?? {});
  }
  const out = join(await mkdtemp(join(tmpdir(), "svc-chains-")), "chains.json");
  await writeFile(out, JSON.stringify(file));
  return out;
};

/** A copy of a chains file with `fields` set on every chain. */
const everyChainWith = async (path: string, fields: Record<string, unknown>): Promise<string> => {
  const file = JSON.parse(await readFile(path, "utf8")) as { chains: Array<{ chain_id: number }> };
  return rewriteChainsFile(path, new Map(), new Map(file.chains.map((chain) => [chain.chain_id, fields])));
};

/**
 * A copy of a chains file whose chains record every wallet's token touches (`index_wallets: all`;
 * the devnet's own file, followed from the head, records only discovered wallets'): tests of what
 * the index records for wallets nobody asked about use this.
 */
export const everyWalletChainsFile = (path: string): Promise<string> =>
  everyChainWith(path, { index_wallets: "all" });

/**
 * A copy of a chains file whose chains are all indexed from block 0, as a service that reads the
 * whole history: the devnet's own file starts at the head, as a real chain is configured. Tests of
 * history ingest and the references discovery is compared with use this.
 */
export const fullHistoryChainsFile = (path: string): Promise<string> =>
  everyChainWith(path, { start_block: 0 });
