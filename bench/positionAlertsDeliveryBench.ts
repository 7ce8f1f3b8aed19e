import { aaveOracle } from "../test/support/aaveOracle.js";
import { startDevnetService } from "../test/support/devnetService.js";
import { eventually } from "../test/support/serviceHarness.js";
import { callerFor, WEBHOOKS } from "../test/support/webhookEnv.js";
import { startReceiver } from "../test/support/webhookReceiver.js";
import { percentile } from "./lib/stats.js";

const CHAIN = 8453;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "20");

/**
 * Block to alert delivery for `health_factor_below` on the devnet (the whole service, a real HTTP
 * receiver): the seeded Aave V3 borrower of Base watched at 1.1, WETH's oracle price dropped to
 * 85 % (an alert) and restored to 110 % (re-armed) ROUNDS times. Measured from the moment the drop's
 * block is mined (its receipt, anvil mining on each transaction) to the alert's arrival.
 */
export const positionAlertsDeliveryBench = async () => {
  const env = await startDevnetService({ webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"] });
  const receiver = await startReceiver();
  const lines: Array<string> = [];
  try {
    const call = callerFor(env.service.baseUrl, env.key);
    const chain = env.devnet.manifest.chains.find((c) => c.chain_id === CHAIN)!;
    const weth = aaveOracle(chain, "WETH");
    const borrower = chain.lending_positions
      .find((p) => p.purpose === "borrower" && p.kind === "aave_v3")!
      .owner.toLowerCase();
    await weth.setPercent(110);
    const created = await call("POST", WEBHOOKS, {
      name: "bench",
      url: receiver.url,
      type: "positions",
      addresses: [borrower],
      chain_ids: [CHAIN],
      conditions: { health_factor_below: 1.1 },
    });
    if (created.status !== 200) throw new Error(created.text);
    await env.get(`/beta/evm/defi/positions/${borrower}?chain_ids=${CHAIN}`);
    // The first round also waits for the notifier's address book; it is not counted.
    const latencies: Array<number> = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const seen = receiver.received.length;
      await weth.setPercent(85);
      const mined = performance.now();
      await eventually(async () => receiver.received.length > seen, 60_000, `alert of round ${round}`);
      if (round > 0) latencies.push(receiver.received[seen]!.at - mined);
      await weth.setPercent(110);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    lines.push(
      `block to alert delivery over ${ROUNDS} crossings (ms, the drop's receipt to the receiver's arrival): p50 ${percentile(sorted, 50).toFixed(0)}, p90 ${percentile(sorted, 90).toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}`,
    );
  } finally {
    await receiver.stop();
    await env.stop();
  }
  return { name: "position-alerts-delivery", lines };
};
