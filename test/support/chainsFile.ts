import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A copy of a chains file with some chains' RPC URLs replaced (by a counting or failing proxy). */
export const rewriteChainsFile = async (path: string, rpcByChain: ReadonlyMap<number, string>) => {
  const file = JSON.parse(await readFile(path, "utf8")) as {
    chains: Array<{ chain_id: number; rpc_url: string; ws_url?: string }>;
  };
  for (const chain of file.chains) {
    const rpc = rpcByChain.get(chain.chain_id);
    if (rpc !== undefined) chain.rpc_url = rpc;
  }
  const out = join(await mkdtemp(join(tmpdir(), "svc-chains-")), "chains.json");
  await writeFile(out, JSON.stringify(file));
  return out;
};
