import type { Hex } from "viem";
import { startAnvil } from "../../src/devnet/AnvilProcess.js";
import { SWEEP_LENS_ADDRESS, sweepCall, sweepLensCode } from "../../src/discovery/lens/sweepLens.js";
import { SWEEP_BATCH, sweepBalances } from "../../src/discovery/sweepBalances.js";
import { directChainRpc } from "../../test/support/chainRpc.js";
import { percentile } from "./stats.js";

/** `balanceOf(anyone)` answers storage slot 0 (as in test/integration/discovery/sweepBalances.test.ts). */
const SLOT_ZERO_TOKEN = "0x60005460005260206000f3";
const WALLET = `0x${"77".repeat(20)}`;
/** One token in this many holds a balance (slot 0 set), so that the sweep finds something. */
const HELD_EVERY = 100;
/** JSON-RPC elements per request while placing the tokens. */
const PLACE_BATCH = 500;

const tokenAt = (i: number) => `0x${(0x5eed0000 + i).toString(16).padStart(40, "0")}`;

const rpcBatch = async (
  url: string,
  calls: ReadonlyArray<{ method: string; params: ReadonlyArray<unknown> }>,
) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await res.json()) as ReadonlyArray<{ result?: unknown; error?: { message: string } }>;
  const failed = answers.find((a) => a.error !== undefined);
  if (failed !== undefined) throw new Error(`anvil refused: ${failed.error!.message}`);
  return answers.map((a) => a.result);
};

const rpcOne = async <T>(url: string, method: string, params: ReadonlyArray<unknown>): Promise<T> =>
  (await rpcBatch(url, [{ method, params }]))[0] as T;

/**
 * The sweep's cost per 1,000 tokens of universe, on a bare anvil holding `max(sizes)` synthetic
 * tokens placed with `anvil_setCode` (each answers `balanceOf` from one storage slot, one in
 * HELD_EVERY holding a balance): for each size, the `eth_call`s `sweepBalances` makes, its wall
 * time (first sweep, then p50 of `repetitions`), and the gas one full batch of SWEEP_BATCH tokens
 * uses (debug_traceCall, intrinsic and calldata gas included) and what `eth_estimateGas` asks for it.
 */
export const sweepCost = async (sizes: ReadonlyArray<number>, repetitions: number) => {
  const anvil = await startAnvil({ chainId: 31337 });
  const url = anvil.rpcUrl;
  const { rpc, close } = directChainRpc(url);
  const lines: Array<string> = [];
  try {
    const most = Math.max(...sizes);
    const placeStart = performance.now();
    for (let from = 0; from < most; from += PLACE_BATCH) {
      const calls: Array<{ method: string; params: ReadonlyArray<unknown> }> = [];
      for (let i = from; i < Math.min(most, from + PLACE_BATCH); i++) {
        calls.push({ method: "anvil_setCode", params: [tokenAt(i), SLOT_ZERO_TOKEN] });
        if (i % HELD_EVERY === 0)
          calls.push({ method: "anvil_setStorageAt", params: [tokenAt(i), "0x0", `0x${"0".repeat(63)}1`] });
      }
      await rpcBatch(url, calls);
    }
    const placeMs = performance.now() - placeStart;
    const head = { number: Number(await rpcOne<string>(url, "eth_blockNumber", [])) };
    const code = await sweepLensCode();

    // Gas of one full batch, as the sweep sends it.
    const batch = Array.from({ length: SWEEP_BATCH }, (_, i) => tokenAt(i));
    const call = sweepCall(code, WALLET, batch);
    const tx = { to: SWEEP_LENS_ADDRESS, data: call.callData, gas: "0x1d905c0" };
    const overrides = { [SWEEP_LENS_ADDRESS]: { code } };
    const trace = await rpcOne<{ gasUsed: Hex }>(url, "debug_traceCall", [
      tx,
      "latest",
      { tracer: "callTracer", tracerConfig: { onlyTopCall: true }, stateOverrides: overrides },
    ]);
    const gasUsed = Number(trace.gasUsed);
    const estimate = Number(await rpcOne<Hex>(url, "eth_estimateGas", [tx, "latest", overrides]));
    lines.push(
      `${most.toLocaleString("en-US")} synthetic tokens placed with anvil_setCode in ${(placeMs / 1000).toFixed(1)} s (one in ${HELD_EVERY} held)`,
      `one eth_call of ${SWEEP_BATCH} tokens: ${gasUsed.toLocaleString("en-US")} gas used (debug_traceCall, intrinsic and calldata included; ${Math.round(gasUsed / SWEEP_BATCH).toLocaleString("en-US")} per token), eth_estimateGas ${estimate.toLocaleString("en-US")}; per 1,000 tokens ${Math.round((gasUsed * 1000) / SWEEP_BATCH).toLocaleString("en-US")} gas`,
    );

    for (const size of sizes) {
      const tokens = Array.from({ length: size }, (_, i) => tokenAt(i));
      const firstStart = performance.now();
      const first = await sweepBalances(rpc, WALLET, tokens, head);
      const firstMs = performance.now() - firstStart;
      const expected = Math.ceil(size / HELD_EVERY);
      if (first.held.length !== expected)
        throw new Error(`the sweep of ${size} tokens found ${first.held.length} held, not ${expected}`);
      const samples: Array<number> = [];
      for (let i = 0; i < repetitions; i++) {
        const start = performance.now();
        await sweepBalances(rpc, WALLET, tokens, head);
        samples.push(performance.now() - start);
      }
      const p50 = percentile(
        samples.sort((a, b) => a - b),
        50,
      );
      const per1000 = 1000 / size;
      lines.push(
        `${size.toLocaleString("en-US")} tokens: ${first.calls} eth_calls (${(first.calls * per1000).toFixed(1)} per 1,000), first sweep ${firstMs.toFixed(1)} ms, then p50 ${p50.toFixed(1)} ms of ${repetitions}: ${(p50 * per1000).toFixed(1)} ms per 1,000 tokens`,
      );
    }
    return lines;
  } finally {
    await close();
    await anvil.stop();
  }
};
