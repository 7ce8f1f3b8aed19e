import { describe, expect, it } from "vitest";
import { type CallNeed, chooseEndpoint } from "../../../../src/chains/rpc/chooseEndpoint.js";
import { EndpointHealth } from "../../../../src/chains/rpc/EndpointHealth.js";

const NOW = 1_000_000;

const endpoint = (setup: (health: EndpointHealth) => void = () => undefined, pausedUntil = 0) => {
  const health = new EndpointHealth();
  health.observeHead(100, NOW - 100);
  health.answered(10);
  setup(health);
  return { health, pausedUntil };
};

const need = (over: Partial<CallNeed> = {}): CallNeed => ({
  method: "eth_call",
  head: false,
  excluded: new Set(),
  ...over,
});

describe("chooseEndpoint", () => {
  it("default: the first configured endpoint when all are well", () => {
    expect(chooseEndpoint([endpoint(), endpoint()], need(), NOW, 5)).toEqual({ kind: "use", index: 0 });
  });

  it("behavior: a failing primary is passed over; with every endpoint failing, the soonest back is waited for", () => {
    const failing = (until: number) =>
      endpoint((h) => h.failed({ reason: "Unavailable", detail: "refused" }, until - 1_000));
    expect(chooseEndpoint([failing(NOW + 500), endpoint()], need(), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
    expect(chooseEndpoint([failing(NOW + 900), failing(NOW + 300)], need(), NOW, 5)).toEqual({
      kind: "wait",
      index: 1,
      untilMs: NOW + 300,
      failing: true,
    });
    // Once its pause is over it is tried again, except by calls a client waits for (the monitor finds out).
    expect(chooseEndpoint([failing(NOW - 1)], need(), NOW, 5)).toEqual({ kind: "use", index: 0 });
    expect(chooseEndpoint([failing(NOW - 1)], need({ avoidFailing: true }), NOW, 5)).toMatchObject({
      kind: "wait",
      failing: true,
    });
  });

  it("behavior: a rate-limit pause sends the call elsewhere", () => {
    expect(chooseEndpoint([endpoint(() => undefined, NOW + 2_000), endpoint()], need(), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
  });

  it("behavior: head reads skip an endpoint behind the best head by more than the allowed lag", () => {
    const behind = endpoint((h) => h.observeHead(90, NOW));
    expect(chooseEndpoint([behind, endpoint()], need({ head: true }), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
    // Other reads still use it: it has the state of older blocks.
    expect(chooseEndpoint([behind, endpoint()], need(), NOW, 5)).toEqual({ kind: "use", index: 0 });
    // Within the allowed lag it is the primary again.
    expect(chooseEndpoint([behind, endpoint()], need({ head: true }), NOW, 20)).toEqual({
      kind: "use",
      index: 0,
    });
  });

  it("behavior: a block the endpoint has not reached goes to one that has", () => {
    const behind = endpoint((h) => h.observeHead(95, NOW));
    expect(chooseEndpoint([behind, endpoint()], need({ block: 98 }), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
  });

  it("behavior: when the only endpoint that reached a block is failing, the others are asked for it", () => {
    // The primary's last head poll saw block 98 before it went away; the fallback's poll came a
    // block earlier. A read of block 98 a client waits for goes to the fallback, not nowhere.
    const gone = endpoint((h) => {
      h.observeHead(98, NOW - 50);
      h.failed({ reason: "Unavailable", detail: "connection refused" }, NOW - 10);
    });
    const behind = endpoint((h) => h.observeHead(97, NOW - 60));
    expect(chooseEndpoint([gone, behind], need({ block: 98, avoidFailing: true }), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
    // Its pause over but not yet answering again, it is still passed over by such a read.
    const paused = endpoint((h) => {
      h.observeHead(98, NOW - 5_000);
      h.failed({ reason: "Unavailable", detail: "connection refused" }, NOW - 4_000);
    });
    expect(chooseEndpoint([paused, behind], need({ block: 98, avoidFailing: true }), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
  });

  it("behavior: an endpoint known to lack the state (or logs) of a block is asked last", () => {
    const pruned = endpoint((h) => {
      h.capabilities = { stateFrom: 90, logsFrom: 0, probedAt: NOW };
    });
    expect(chooseEndpoint([pruned, endpoint()], need({ block: 50, reads: "state" }), NOW, 5)).toEqual({
      kind: "use",
      index: 1,
    });
    expect(chooseEndpoint([pruned, endpoint()], need({ block: 50, reads: "logs" }), NOW, 5)).toEqual({
      kind: "use",
      index: 0,
    });
  });

  it("behavior: a range of logs goes by its first block: only to endpoints that keep it, waiting for one rather than asking a pruned one", () => {
    // A full node keeping logs from block 60 (reth answers older blocks' logs with nothing), and
    // an archive.
    const full = () =>
      endpoint((h) => {
        h.capabilities = { stateFrom: 60, logsFrom: 60, probedAt: NOW };
      });
    const archive = (pausedUntil = 0) =>
      endpoint((h) => {
        h.capabilities = { stateFrom: 0, logsFrom: 0, probedAt: NOW };
      }, pausedUntil);
    const range = need({ method: "eth_getLogs", block: 90, from: 40, reads: "logs" });
    // The range's last block is in the full node's window: it is still not asked.
    expect(chooseEndpoint([full(), archive()], range, NOW, 5)).toEqual({ kind: "use", index: 1 });
    // The archive paused for rate: the call waits for it.
    expect(chooseEndpoint([full(), archive(NOW + 400)], range, NOW, 5)).toEqual({
      kind: "wait",
      index: 1,
      untilMs: NOW + 400,
      failing: false,
    });
    // A range the full node keeps whole goes to it as to any.
    expect(chooseEndpoint([full(), archive()], { ...range, from: 70 }, NOW, 5)).toEqual({
      kind: "use",
      index: 0,
    });
    // No endpoint known to keep it: none that is known not to is asked (reth would answer with
    // nothing, taken for a range found empty); one whose probe has not said still may be.
    expect(chooseEndpoint([full(), full()], range, NOW, 5)).toEqual({ kind: "none" });
    expect(chooseEndpoint([full(), endpoint()], range, NOW, 5)).toEqual({ kind: "use", index: 1 });
    // The archive refused this very call (its head a block behind the range's end): not the full node.
    expect(chooseEndpoint([full(), archive()], { ...range, excluded: new Set([1]) }, NOW, 5)).toEqual({
      kind: "none",
    });
    // One whose probe has not said where its logs begin is not asked while the archive can be.
    expect(chooseEndpoint([endpoint(), archive()], range, NOW, 5)).toEqual({ kind: "use", index: 1 });
  });

  it("behavior: a call goes past an endpoint at this process's rate to one that can take it at once", () => {
    const atRate = { ...endpoint(), atRate: true };
    expect(chooseEndpoint([atRate, endpoint()], need(), NOW, 5)).toEqual({ kind: "use", index: 1 });
    // Both at their rate: the configured order.
    expect(chooseEndpoint([atRate, { ...endpoint(), atRate: true }], need(), NOW, 5)).toEqual({
      kind: "use",
      index: 0,
    });
  });

  it("behavior: endpoints that lack the method, serve another chain or refused this call are never chosen", () => {
    const lacks = endpoint((h) => h.lacks.add("debug_traceBlockByHash"));
    const wrong = endpoint((h) => {
      h.wrongChain = 5;
    });
    expect(
      chooseEndpoint([lacks, wrong, endpoint()], need({ method: "debug_traceBlockByHash" }), NOW, 5),
    ).toEqual({ kind: "use", index: 2 });
    expect(chooseEndpoint([lacks, wrong], need({ method: "debug_traceBlockByHash" }), NOW, 5)).toEqual({
      kind: "none",
    });
    expect(chooseEndpoint([endpoint(), endpoint()], need({ excluded: new Set([0, 1]) }), NOW, 5)).toEqual({
      kind: "none",
    });
  });

  it("behavior: a recent error or a much slower answer puts an endpoint behind a healthy one", () => {
    const erred = endpoint((h) => h.refused({ reason: "Rejected", detail: "x" }, NOW - 1_000));
    expect(chooseEndpoint([erred, endpoint()], need(), NOW, 5)).toEqual({ kind: "use", index: 1 });
    const slow = endpoint((h) => {
      h.latencyMs = 900;
    });
    expect(chooseEndpoint([slow, endpoint()], need(), NOW, 5)).toEqual({ kind: "use", index: 1 });
  });
});
