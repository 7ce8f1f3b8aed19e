import { describe, expect, it } from "vitest";
import { type ChainFacts, judgeChain, judgeService } from "../../../src/api/handlers/health/judgeHealth.js";
import type { RpcEndpointStatus } from "../../../src/contracts/RpcStatus.js";
import { initialStatus } from "../../../src/ingest/FollowerStatus.js";

const endpoint = (state: RpcEndpointStatus["state"], lastError: string | null = null): RpcEndpointStatus => ({
  url: "http://node:8545",
  state,
  head: 100,
  lag: 0,
  latency_ms: 3,
  requests: 10,
  errors: 0,
  last_error: lastError,
  rate_limit_rps: null,
  max_batch: 40,
  state_from_block: 0,
  logs_from_block: 0,
  block_receipts: true,
  traces: false,
  probed_at: null,
});

const chain = (
  id: number,
  states: ReadonlyArray<RpcEndpointStatus["state"]>,
  mode: "starting" | "history" | "live" | "unfollowed" = "live",
): ChainFacts => ({
  chainId: id,
  name: `chain${id}`,
  node: {
    state_from_block: 0,
    logs_from_block: 0,
    traces: false,
    endpoints: states.map((s) => endpoint(s, s === "failing" ? "connection refused (ECONNREFUSED)" : null)),
  },
  ingest: mode === "unfollowed" ? undefined : { ...initialStatus(id, `chain${id}`), mode },
  indexBehind: false,
});

const judged = (facts: ReadonlyArray<ChainFacts>) => facts.map((f) => ({ facts: f, verdict: judgeChain(f) }));

describe("/healthz judgement", () => {
  it("default: every chain live and answering is ok", () => {
    expect(judgeService([], judged([chain(1, ["ok"]), chain(8453, ["ok", "failing"])]))).toEqual({
      state: "ok",
    });
  });

  it("behavior: one chain whose every endpoint fails degrades the service (200), naming it and the cause", () => {
    const verdict = judgeService([], judged([chain(1, ["ok"]), chain(8453, ["failing", "wrong_chain"])]));
    expect(verdict.state).toBe("degraded");
    expect(verdict.reason).toMatch(
      /chain8453 \(8453\) RPC not answering \(http:\/\/node:8545: connection refused/,
    );
  });

  it("behavior: a chain whose blocks a full JetStream store refuses degrades the service (200), naming the store", () => {
    const full = chain(8453, ["ok"]);
    const facts = { ...full, ingest: { ...full.ingest!, store_full: true } };
    const verdict = judgeService([], judged([chain(1, ["ok"]), facts]));
    expect(verdict.state).toBe("degraded");
    expect(verdict.reason).toMatch(/chain8453 \(8453\) blocks refused: the JetStream store is full/);
    // Every chain refused: still degraded, not down: reads answer from the chain.
    expect(judgeService([], judged([facts])).state).toBe("degraded");
  });

  it("behavior: a chain still reading history keeps the service starting; no chain answering is down", () => {
    expect(judgeService([], judged([chain(1, ["ok"], "history"), chain(10, ["failing"])])).state).toBe(
      "starting",
    );
    expect(judgeService([], judged([chain(1, ["failing"]), chain(10, ["failing"])])).state).toBe("down");
    expect(judgeService(["ingest"], judged([chain(1, ["ok"])])).state).toBe("starting");
  });

  it("behavior: a chain's own verdict says why it is not ready", () => {
    expect(judgeChain(chain(1, ["unknown"]))).toEqual({
      answers: false,
      ready: false,
      down: false,
      reason: "RPC not answered yet",
    });
    expect(judgeChain(chain(1, ["ok"], "unfollowed"))).toMatchObject({
      answers: true,
      reason: "not followed by ingest yet",
    });
    expect(judgeChain({ ...chain(1, ["lagging"]), indexBehind: true })).toMatchObject({
      reason: "still being indexed",
    });
    expect(judgeChain(chain(1, ["lagging"]))).toEqual({ answers: true, ready: true, down: false });
  });
});
