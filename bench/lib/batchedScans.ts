import { Effect } from "effect";
import { startAnvil } from "../../src/devnet/AnvilProcess.js";
import { devAccount } from "../../src/devnet/devAccounts.js";
import { filterWidth, type ScannedStretch, scanWalletsStretch } from "../../src/discovery/walletLogScan.js";
import { TRANSFER_EMITTER_CODE, transferCalldata } from "../../test/support/logEmitters.js";
import { startProviderProxy } from "../../test/support/providerProxy.js";
import { benchChainRpc } from "./benchChainRpc.js";
import { hex, nodeRequest } from "./nodeRequest.js";
import { median } from "./stats.js";

const FROM = devAccount(0).address;
const OUTSIDER = `0x${"0d".repeat(20)}`;
const TOKENS = 5;
/**
 * eth_getLogs range cap of the proxy: a real chain's history is thousands of capped ranges, a
 * bench's few thousand blocks (anvil mines 2,000 in about 3 s) a handful at this cap.
 */
const RANGE_CAP = 500;
const wallet = (n: number) => `0x${(0xe0000 + n).toString(16).padStart(40, "0")}`;
const token = (n: number) => `0x${(0xa000 + n).toString(16).padStart(40, "0")}`;

/** One transfer to each wallet, spread evenly over `blocks` blocks of a bare anvil. */
const mineTransfers = async (
  url: string,
  wallets: ReadonlyArray<string>,
  blocks: number,
): Promise<number> => {
  for (let t = 0; t < TOKENS; t++) await nodeRequest(url, "anvil_setCode", [token(t), TRANSFER_EMITTER_CODE]);
  const gap = Math.max(0, Math.floor(blocks / wallets.length) - 1);
  for (const [i, w] of wallets.entries()) {
    await nodeRequest(url, "eth_sendTransaction", [
      { from: FROM, to: token(i % TOKENS), data: transferCalldata(OUTSIDER, w) },
    ]);
    if (gap > 0) await nodeRequest(url, "anvil_mine", [hex(gap)]);
  }
  return Number.parseInt(await nodeRequest<string>(url, "eth_blockNumber"), 16);
};

interface ScanRun {
  readonly ms: number;
  readonly getLogs: number;
  readonly found: ReadonlyMap<string, ScannedStretch>;
}

const tokensOf = (found: ReadonlyMap<string, ScannedStretch>) =>
  JSON.stringify([...found].map(([w, s]) => [w, s.tokens.map((t) => `${t.token}@${t.block}`).sort()]).sort());

/**
 * A webhook's `walletCount` wallets' transfer history (one transfer each over `blocks` blocks of a
 * bare anvil), read behind a QuickNode-style proxy (RANGE_CAP-block eth_getLogs ranges) two ways,
 * alternately `repetitions` times: one wallet at a time, as each wallet's scan read it before
 * (four filters per range), and all of them in one batch (the same four filters naming every
 * wallet). Both must find the same tokens for each wallet.
 */
export const batchedScans = async (
  walletCount: number,
  blocks: number,
  repetitions: number,
): Promise<ReadonlyArray<string>> => {
  const anvil = await startAnvil({ chainId: 31337 });
  const proxy = await startProviderProxy({
    target: anvil.rpcUrl,
    style: "quicknode",
    maxLogsRange: RANGE_CAP,
  });
  const { rpc, close } = await benchChainRpc(proxy.url, { chainId: 31337 });
  try {
    const wallets = Array.from({ length: walletCount }, (_, i) => wallet(i));
    const head = await mineTransfers(anvil.rpcUrl, wallets, blocks);
    const read = async (batch: number): Promise<ScanRun> => {
      proxy.resetStats();
      const width = filterWidth(batch);
      const began = performance.now();
      const found = new Map<string, ScannedStretch>();
      // One wallet at a time is what each wallet's own scan sent; a batch is one call of the lot.
      const groups = batch === 1 ? wallets.map((w) => [w]) : [wallets];
      for (const group of groups) {
        const read = await Effect.runPromise(scanWalletsStretch(rpc, group, 0, head, new Set(), width));
        if (read.failed.size > 0) throw new Error(`the scan failed: ${String([...read.failed.values()][0])}`);
        for (const [w, s] of read.found) found.set(w, s);
      }
      return { ms: performance.now() - began, getLogs: proxy.stats().methods.eth_getLogs ?? 0, found };
    };
    const single: Array<ScanRun> = [];
    const batched: Array<ScanRun> = [];
    for (let rep = 0; rep < repetitions; rep++) {
      single.push(await read(1));
      batched.push(await read(walletCount));
    }
    const expected = tokensOf(single[0]!.found);
    if ([...single, ...batched].some((run) => tokensOf(run.found) !== expected))
      throw new Error("batched scans found other tokens than one wallet at a time");
    const found = [...single[0]!.found.values()].reduce((n, s) => n + s.tokens.length, 0);
    const p50 = (runs: ReadonlyArray<ScanRun>) => median(runs.map((r) => r.ms));
    return [
      `${walletCount} wallets, ${head.toLocaleString("en-US")} blocks, QuickNode-style ${RANGE_CAP}-block ranges, ${found} tokens found either way, p50 of ${repetitions} alternated:`,
      `  one wallet at a time: ${single[0]!.getLogs} eth_getLogs, ${p50(single).toFixed(0)} ms`,
      `  one batch of ${walletCount}: ${batched[0]!.getLogs} eth_getLogs, ${p50(batched).toFixed(0)} ms`,
      `  calls one at a time / batched: ${(single[0]!.getLogs / batched[0]!.getLogs).toFixed(0)}x; time ${(p50(single) / p50(batched)).toFixed(1)}x`,
    ];
  } finally {
    await close();
    await proxy.stop();
    await anvil.stop();
  }
};
