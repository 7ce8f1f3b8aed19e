import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeHistoricalPrices } from "../../../src/balances/historicalPrices.js";
import { SECANT_ROUNDS, searchBlockAtTime } from "../../../src/chains/blockAtTime.js";
import { makeBlockTimeFinder } from "../../../src/chains/blockTimeFinder.js";
import { nodeHeaders } from "../../../src/chains/nodeHeaders.js";
import type { ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import type { IndexReader } from "../../../src/indexer/IndexReader.js";
import { anvilFixture } from "../../support/anvil.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { directChainRpc } from "../../support/chainRpc.js";

const anvil = anvilFixture();
let client: ChainRpc;
let close: () => Promise<void> = async () => undefined;
/** Headers the service asked anvil for (eth_getBlockByNumber elements). */
let asked = 0;
/** Every block's timestamp, as anvil reports it after mining. */
let times: Array<number> = [];

const rpc = async (method: string, params: ReadonlyArray<unknown>) => {
  const reply = (await fetch(anvil.node().rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  }).then((r) => r.json())) as { result?: unknown; error?: { message: string } };
  if (reply.error !== undefined) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
};

/**
 * Seconds between consecutive blocks after genesis, chosen to cover what real chains do: 12 s
 * slots with a missed one, runs of blocks sharing one second (five, as Base at 200 ms; up to nine),
 * a halt of two days, hourly blocks (so hour offsets fall between blocks), and a run at the head.
 */
const STEPS: ReadonlyArray<number> = [
  10,
  ...Array.from({ length: 30 }, (_, i) => (i === 17 ? 24 : 12)),
  ...Array.from({ length: 60 }, (_, i) => (i % 5 === 0 ? 1 : 0)),
  ...Array.from({ length: 40 }, (_, i) => [0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 0, 2][i % 12]!),
  2 * 86_400,
  ...Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 3_600 : 1_800 + i)),
  7,
  0,
  0,
  0,
];

/** The last block at or before `time`, from every timestamp (what the search must find). */
const expected = (time: number): number | undefined => {
  let last: number | undefined;
  for (const [n, t] of times.entries()) if (t <= time) last = n;
  return last;
};

const header = async (n: number) =>
  Number.parseInt(
    ((await rpc("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as { timestamp: string }).timestamp,
    16,
  );

beforeAll(async () => {
  await anvil.start();
  ({ rpc: client, close } = directChainRpc(anvil.node().rpcUrl, {
    onRequest: (request) => {
      if (request.method === "eth_getBlockByNumber") asked++;
    },
  }));
  let time = await header(0);
  for (const step of STEPS) {
    time += step;
    await rpc("evm_mine", [time]);
  }
  const head = Number.parseInt((await rpc("eth_blockNumber", [])) as string, 16);
  times = [];
  for (let n = 0; n <= head; n++) times.push(await header(n));
}, 120_000);

afterAll(async () => {
  await close();
  await anvil.stop();
});

/** Every timestamp of the chain, a second either side, and the middle of every gap. */
const probeTimes = () => {
  const set = new Set<number>([times[0]! - 1_000]);
  for (const [n, t] of times.entries()) {
    set
      .add(t - 1)
      .add(t)
      .add(t + 1);
    const next = times[n + 1];
    if (next !== undefined) set.add(Math.floor((t + next) / 2));
  }
  set.add(times.at(-1)! + 86_400);
  return [...set].sort((a, b) => a - b);
};

describe("the block at a time on a real node (anvil)", () => {
  it("behavior: anvil keeps the timestamps mined, runs of equal ones included", () => {
    let time = times[0]!;
    expect(times.slice(1)).toEqual(STEPS.map((step) => (time += step)));
    expect(times.length).toBe(STEPS.length + 1);
  });

  it("behavior: exact for every timestamp, a second either side and every gap's middle, within the bound of headers", async () => {
    const head = times.length - 1;
    const most = 2 + 3 * (SECANT_ROUNDS + Math.ceil(Math.log2(head + 1))) + 1;
    for (const time of probeTimes()) {
      const before = asked;
      const { answer } = await searchBlockAtTime(nodeHeaders(client), time);
      const want = expected(time);
      if (want === undefined)
        expect(answer, `time ${time}`).toEqual({ kind: "beforeGenesis", genesisTimestamp: times[0] });
      else
        expect(answer, `time ${time}`).toEqual({
          kind: "block",
          number: want,
          timestamp: times[want],
          isHead: want === head,
        });
      expect(asked - before).toBeLessThanOrEqual(most);
    }
  });

  it("behavior: the finder's answers equal the search's, and a second pass over final times asks the node nothing", async () => {
    const finder = makeBlockTimeFinder();
    const depth = 10;
    const head = times.length - 1;
    const final = probeTimes().filter((time) => {
      const want = expected(time);
      return want === undefined || want + 1 <= head - depth;
    });
    for (const time of final) {
      const found = await finder.find(31337, nodeHeaders(client), time, depth);
      const want = expected(time);
      expect(found.kind === "block" ? found.number : undefined, `time ${time}`).toBe(want);
    }
    const before = asked;
    const { misses } = finder.lookups();
    for (const time of final) {
      const found = await finder.find(31337, nodeHeaders(client), time, depth);
      expect(found.kind === "block" ? found.number : undefined, `time ${time}`).toBe(expected(time));
    }
    expect(asked).toBe(before);
    expect(finder.lookups().misses).toBe(misses);
  });

  it("behavior: historical prices' past blocks come from the node where the index holds nothing", async () => {
    const emptyIndex = {
      blockAtOrBefore: async () => undefined,
      blockTime: async () => undefined,
    } as unknown as IndexReader;
    const history = makeHistoricalPrices(emptyIndex, () => client, 1 << 20);
    const chain = testChainConfig({ chain_id: 31337, finality_depth: 5 });
    const now = times.at(-1)! + 30;
    for (let hours = 1; hours <= 60; hours++)
      expect(await history.blockHoursAgo(chain, now, hours), `${hours} h`).toBe(
        expected(now - hours * 3_600),
      );
    expect(await history.blockHoursAgo(chain, times[0]! + 3_600 - 1, 1)).toEqual({
      missing: expect.stringMatching(/^the chain has no block that old/),
    });
  });
});
