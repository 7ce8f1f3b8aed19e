import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import {
  endpointVerdicts,
  firstKeptAfter,
  goneFromEveryEndpoint,
} from "../../../src/ingest/goneFromEveryEndpoint.js";
import { fakeChainRpcOf } from "../../support/chainRpc.js";
import { down, keepsFrom, noBlockReceiptsKeepsFrom } from "../../support/prunedFakeNodes.js";

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect);

describe("goneFromEveryEndpoint", () => {
  it("behavior: a block is gone only when every endpoint says so; one that says nothing keeps it unless told otherwise", async () => {
    const rpc = fakeChainRpcOf([keepsFrom(500), down]);
    expect(await run(goneFromEveryEndpoint(rpc, 400, "logs"))).toBe(false);
    const downOne = (e: unknown) => e === rpc.endpoints[1];
    expect(await run(goneFromEveryEndpoint(rpc, 400, "logs", downOne))).toBe(true);
    expect(await run(goneFromEveryEndpoint(rpc, 600, "logs", downOne))).toBe(false);
    const both = fakeChainRpcOf([keepsFrom(500), keepsFrom(300)]);
    expect(await run(goneFromEveryEndpoint(both, 400, "state"))).toBe(false);
    expect(await run(goneFromEveryEndpoint(both, 200, "state"))).toBe(true);
  });

  it("behavior: an endpoint that cannot trace is not asked about state, one serving another chain about anything", async () => {
    const asked: Array<number> = [];
    const rpc = fakeChainRpcOf([keepsFrom(500), keepsFrom(0, asked)]);
    rpc.endpoints[1]!.health.capabilities = { traces: false };
    expect(await run(goneFromEveryEndpoint(rpc, 400, "state"))).toBe(true);
    expect(await run(goneFromEveryEndpoint(rpc, 400, "logs"))).toBe(false);
    rpc.endpoints[1]!.health.wrongChain = 5;
    expect(await run(goneFromEveryEndpoint(rpc, 400, "logs"))).toBe(true);
    expect(asked).toEqual([400]);
    // Nobody left to ask: nothing is known gone.
    rpc.endpoints[0]!.health.wrongChain = 5;
    expect(await run(goneFromEveryEndpoint(rpc, 400, "logs"))).toBe(false);
  });

  it("behavior: a probe's figure settles only blocks below its precision; nearer ones are asked", async () => {
    const asked: Array<number> = [];
    const rpc = fakeChainRpcOf([keepsFrom(995, asked)]);
    // Probed at head 1,640: kept from 1,000, searched to within 1/64 of 640 blocks (10).
    rpc.endpoints[0]!.health.capabilities = { logsFrom: 1_000, head: 1_640 };
    expect(await run(endpointVerdicts(rpc, 990, "logs"))).toMatchObject([{ verdict: "gone" }]);
    expect(asked).toEqual([]);
    expect(await run(endpointVerdicts(rpc, 996, "logs"))).toMatchObject([{ verdict: "kept" }]);
    expect(asked).toEqual([996]);
    // A probe that found no block kept (its figure past its head) settles nothing.
    rpc.endpoints[0]!.health.capabilities = { logsFrom: 1_641, head: 1_640 };
    expect(await run(endpointVerdicts(rpc, 1_200, "logs"))).toMatchObject([{ verdict: "kept" }]);
    expect(asked).toEqual([996, 1_200]);
  });
});

describe("firstKeptAfter", () => {
  it("behavior: the first block some endpoint keeps, searched by halves; undefined when even the head is gone", async () => {
    const rpc = fakeChainRpcOf([keepsFrom(500), keepsFrom(731)]);
    expect(await run(firstKeptAfter(rpc, 100, 1_000, "state"))).toBe(500);
    const later = fakeChainRpcOf([keepsFrom(731)]);
    expect(await run(firstKeptAfter(later, 100, 1_000, "state"))).toBe(731);
    expect(await run(firstKeptAfter(later, 730, 731, "state"))).toBe(731);
    expect(
      await run(firstKeptAfter(fakeChainRpcOf([keepsFrom(2_000)]), 100, 1_000, "state")),
    ).toBeUndefined();
  });

  it("behavior: an endpoint that says nothing keeps every block by default, none when counted gone", async () => {
    const rpc = fakeChainRpcOf([keepsFrom(731), down]);
    expect(await run(firstKeptAfter(rpc, 100, 1_000, "state"))).toBe(101);
    // The endpoint given up on is not asked again; another that says nothing still keeps.
    const asked: Array<number> = [];
    let downAsked = 0;
    const named = fakeChainRpcOf([
      keepsFrom(731, asked),
      () => {
        downAsked++;
        return down();
      },
    ]);
    expect(await run(firstKeptAfter(named, 100, 1_000, "state", (e) => e === named.endpoints[1]))).toBe(731);
    expect(downAsked).toBe(0);
    expect(asked.length).toBeGreaterThan(5);
    expect(await run(firstKeptAfter(named, 100, 1_000, "state", (e) => e === named.endpoints[0]))).toBe(101);
  });

  it("behavior: a node without eth_getBlockReceipts is asked for the block's logs instead, and so is not held silent for good", async () => {
    const asked: Array<number> = [];
    const rpc = fakeChainRpcOf([keepsFrom(500), noBlockReceiptsKeepsFrom(731, asked)]);
    expect(await run(goneFromEveryEndpoint(rpc, 400, "logs"))).toBe(true);
    expect(await run(goneFromEveryEndpoint(rpc, 800, "logs"))).toBe(false);
    expect(await run(firstKeptAfter(rpc, 100, 1_000, "logs"))).toBe(500);
    // Once it is known to lack the method, its logs are asked at once.
    rpc.endpoints[1]!.health.lacks.add("eth_getBlockReceipts");
    expect(await run(endpointVerdicts(rpc, 600, "logs"))).toEqual([
      { endpoint: rpc.endpoints[0], verdict: "kept" },
      { endpoint: rpc.endpoints[1], verdict: "gone" },
    ]);
    expect(asked).toContain(600);
  });
});
