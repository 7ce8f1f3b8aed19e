import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import {
  entriesOf,
  type RealNodeEnv,
  readWalletAnswers,
  startRealNodeEnv,
} from "../../support/realNodeFlows.js";
import type { Answer } from "../../support/webhookEnv.js";

/**
 * The service started at the head of every devnet chain, reading each through a reth full node
 * that keeps logs, receipts and state for its last 40 blocks only: no history of its own and
 * almost none from the nodes. Every answer is right for what it shows (amounts and positions
 * equal those of a service that indexed the whole history straight on anvil), says what it
 * cannot show, and is never a 5xx.
 */

let devnet: TestDevnet;
let env: RealNodeEnv;

beforeAll(async () => {
  devnet = await startTestDevnet();
  const pruned = [{ style: "reth" as const, prunedWindow: 40 }];
  env = await startRealNodeEnv(
    devnet,
    new Map([
      [1, pruned],
      [8453, pruned],
      [10, pruned],
      [57073, pruned],
    ]),
    { fromHead: true },
  );
}, 400_000);

afterAll(async () => {
  await env?.stop();
  await devnet?.stop();
});

const warnings = (answer: Answer) =>
  (answer.json.warnings ?? []) as ReadonlyArray<{ code: string; chain_ids?: ReadonlyArray<number> }>;

const settledAnswers = async () => {
  const started = Date.now();
  for (;;) {
    const answers = await readWalletAnswers(env.call, env.chain(1));
    const running = [...answers.values()].some(
      (a) =>
        warnings(a.balances).some((w) => w.code === "DISCOVERY_IN_PROGRESS") ||
        warnings(a.positions).some((w) => w.code === "DISCOVERY_IN_PROGRESS"),
    );
    if (!running) return answers;
    if (Date.now() - started > 120_000) throw new Error("discovery still running after 120 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

describe("a fresh service on pruned nodes", { timeout: 300_000 }, () => {
  it("behavior: every answer shows only what is true, names every chain whose history it cannot see, and is never a 5xx", async () => {
    const answers = await settledAnswers();
    for (const [name, proxied] of answers) {
      const direct = env.direct.get(name)!;
      expect(proxied.balances.status, `${name} balances`).toBe(200);
      expect(proxied.positions.status, `${name} positions`).toBe(200);
      const reference = new Map(
        entriesOf(direct.balances, "balances").map((e) => [`${e.chain_id}|${e.address}`, e.amount]),
      );
      for (const entry of entriesOf(proxied.balances, "balances"))
        expect(entry.amount, `${name} ${entry.chain_id} ${entry.address}`).toBe(
          reference.get(`${entry.chain_id}|${entry.address}`),
        );
      const positions = new Set(entriesOf(direct.positions, "positions").map((p) => JSON.stringify(p)));
      for (const position of entriesOf(proxied.positions, "positions"))
        expect(
          positions.has(JSON.stringify(position)),
          `${name} ${JSON.stringify(position).slice(0, 200)}`,
        ).toBe(true);
      for (const answer of [proxied.balances, proxied.positions]) {
        const incomplete = warnings(answer).find((w) => w.code === "INCOMPLETE_HISTORY");
        expect(incomplete?.chain_ids, name).toEqual([1, 10, 8453, 57073]);
      }
    }
    // What needs no history is all there: the whale's native and configured-token amounts.
    const whale = answers.get("whale")!;
    const configured = entriesOf(env.direct.get("whale")!.balances, "balances").filter(
      (e) => e.address === "native",
    );
    for (const entry of configured)
      expect(entriesOf(whale.balances, "balances")).toContainEqual(
        expect.objectContaining({ chain_id: entry.chain_id, address: "native", amount: entry.amount }),
      );
  });
});
