import type { ChainConfig } from "../src/chains/ChainsConfig.js";
import type { Position } from "../src/contracts/Positions.js";
import type { ChainBlock } from "../src/domain/ChainBlock.js";
import { memoryAlertStates } from "../src/webhooks/alerts/AlertStates.js";
import { type PositionAlertDeps, positionsAround } from "../src/webhooks/alerts/positionAlerts.js";
import { positionFootprints } from "../src/webhooks/alerts/positionFootprints.js";
import { memoryBaselines } from "../src/webhooks/alerts/ValueBaselines.js";
import { type ValueChangeDeps, valueChangeAlerts } from "../src/webhooks/alerts/valueChangeAlerts.js";
import { testChainConfig } from "../test/support/chainConfigFixture.js";
import { webhookRecord } from "../test/support/webhookRecordFixture.js";
import { median } from "./lib/stats.js";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000").split(",").map(Number);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? "3");
/** Logs of other contracts in the block beside the one swap: a busy chain's block. */
const OTHER_LOGS = 200;

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const WETH = address(0xeee);
const USDC = address(0x05dc);
const UNI = address(0x0a1);
const WETH_USDC = address(0x1001);
const UNI_USDC = address(0x1003);
const AAVE_POOL = address(0xa1);
const chain: ChainConfig = testChainConfig({ stablecoins: [USDC], wrapped_native: WETH });

/** An Aave supply of `underlying` worth `usd`, as the positions endpoint shows it. */
const supply = (underlying: string, usd: number) =>
  ({
    type: "Tokenized",
    chain_id: 1,
    usd_value: usd,
    token: address(0xa000 + Number.parseInt(underlying.slice(-4), 16)),
    underlying_token: underlying,
    lending_pool: AAVE_POOL,
  }) as unknown as Position;

const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const block = (n: number, logs: ChainBlock["logs"]) =>
  ({
    version: 1,
    chain_id: 1,
    number: n,
    hash: hashOf(n),
    parent_hash: hashOf(n - 1),
    timestamp: n,
    source: "live",
    transactions: [],
    logs,
    internal_transfers: null,
  }) as unknown as ChainBlock;
const logOf = (emitter: string, i: number) =>
  ({
    transaction_hash: hashOf(i),
    transaction_index: 0,
    log_index: i,
    address: emitter,
    topics: [`0x${"d7".repeat(32)}`],
    data: "0x",
  }) as ChainBlock["logs"][number];

/**
 * The service's own cost of one block's `value_change_pct` evaluation when one pricing pool moves
 * (WETH/USDC), for 1k and 10k watched wallets: every wallet holds a WETH supply ("all hold WETH"),
 * or one in ten does and the others a UNI one ("1 in 10"). Footprints are warmed first (each
 * wallet read once, as after a start). Per line: how long deciding which wallets to read takes
 * (a lookup per log of the block's 201), how many the block makes the notifier read, and the whole
 * evaluation with those reads answered from memory (the baselines, the crossings, the writes to
 * in-memory stores). A real read is one positions multicall per wallet (docs/benchmarks.md,
 * "positions": about 5 to 10 ms on the devnet): that, times the wallets read, is the chain's cost.
 */
export const valueChangeAlertsBench = async () => {
  const lines = [
    "wallets | holders of the moved token | warm-up ms per wallet | decide ms (median) | wallets read | evaluate ms (median, reads from memory) | alerts",
  ];
  for (const size of SIZES)
    for (const every of [1, 10]) {
      const wallets = Array.from({ length: size }, (_, i) => address(0xbe_0000_0000 + i));
      const holds = (i: number) => i % every === 0;
      const decide: Array<number> = [];
      const evaluate: Array<number> = [];
      let read = 0;
      let alerts = 0;
      let warmUp = 0;
      for (let r = 0; r < REPETITIONS; r++) {
        const values: ValueChangeDeps = {
          baselines: memoryBaselines(),
          footprints: positionFootprints(
            {
              priceSources: async (_chain, tokens) =>
                new Set(tokens.flatMap((t) => (t === WETH ? [WETH_USDC] : t === UNI ? [UNI_USDC] : []))),
              lendingAsset: async () => undefined,
            },
            size,
          ),
        };
        // WETH 10 % up at block 3: every WETH supply alerts at its 5 % threshold.
        const usdAt = (n: number, i: number) => (holds(i) ? (n >= 3 ? 3300 : 3000) : 500);
        const index = new Map(wallets.map((w, i) => [w, i]));
        const deps = {
          states: memoryAlertStates(),
          readPositions: async (_c: unknown, wallet: string, at: { number: number }) => {
            const i = index.get(wallet)!;
            return [supply(holds(i) ? WETH : UNI, usdAt(at.number, i))];
          },
        } as unknown as PositionAlertDeps;
        const watchers = [
          {
            record: webhookRecord({ id: "w1", type: "positions", conditions: { value_change_pct: 5 } }),
            wallets,
          },
        ];
        const run = (b: ChainBlock) =>
          valueChangeAlerts(deps, values, chain, b, watchers, positionsAround(deps, chain, b));
        const warmStart = performance.now();
        await run(block(1, []));
        warmUp = (performance.now() - warmStart) / size;
        await run(block(2, []));
        const logs = [
          logOf(WETH_USDC, 0),
          ...Array.from({ length: OTHER_LOGS }, (_, i) => logOf(address(0x5000 + i), i + 1)),
        ];
        const moved = block(3, logs);
        // Deciding alone, timed apart: the block as if planned again (same hash as the last seen, so
        // the footprints see no gap), which the evaluation below then decides once more.
        const decideStart = performance.now();
        const due = values.footprints.due(chain, { ...moved, hash: hashOf(2) }, new Set(wallets));
        decide.push(performance.now() - decideStart);
        read = due.length;
        const evaluateStart = performance.now();
        alerts = (await run(moved)).length;
        evaluate.push(performance.now() - evaluateStart);
      }
      lines.push(
        `${size} | ${every === 1 ? "all" : `1 in ${every}`} | ${warmUp.toFixed(3)} | ${median(decide).toFixed(2)} | ${read} | ${median(evaluate).toFixed(0)} | ${alerts}`,
      );
    }
  return { name: "value-change-alerts", lines };
};
