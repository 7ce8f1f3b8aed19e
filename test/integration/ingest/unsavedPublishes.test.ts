import { type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCK_MESSAGE_VERSION, ChainReorg } from "../../../src/domain/ChainBlock.js";
import { publishBlocks, publishReorg } from "../../../src/ingest/BlockPublisher.js";
import { type HeldLease, LeaseLost } from "../../../src/ingest/lease/ChainLease.js";
import { LeaseStoreError } from "../../../src/ingest/lease/LeaseStore.js";
import { publishedAfterIn } from "../../../src/ingest/publishedAfter.js";
import { startBareNats } from "../../support/bareNats.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { branchB, encode, publishedWindowOn, shownEvents } from "../../support/publishedWindowHarness.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * A follower publishes a step's blocks, then saves its checkpoint into the chain's lease. One that
 * stops between the two leaves blocks in CHAIN_EVENTS its checkpoint does not name. If the chain
 * reorganises them away before the next holder starts, that holder reads the new branch from its
 * checkpoint, and consumers, which applied the orphaned blocks, skip the new ones at the same
 * heights as applied already: the orphaned blocks would stay in the index and in delivered
 * webhooks for good. Against a real nats-server, with other chains' blocks published in between.
 */

let bare: Awaited<ReturnType<typeof startBareNats>>;

beforeAll(async () => {
  bare = await startBareNats();
});

afterAll(async () => {
  await bare?.stop();
});

/** What chain 1's consumers were shown: each block's hash, each reorg's removed hashes. */
const shownOfChain1 = (events: Parameters<typeof shownEvents>[0]) =>
  shownEvents({ ...events, events: events.events.filter((event) => event.subject.startsWith("chain.1.")) });

/** Stops the collector and drops the stream and the leases, so the next test starts from nothing. */
const endRun = async (events: { readonly stop: () => unknown }, jsm: JetStreamManager) => {
  await events.stop();
  await jsm.streams.delete("CHAIN_EVENTS");
  await jsm.streams.delete("KV_chain_leases");
};

/** Where every test's chain starts: nothing published, block 9 due. */
const START = { window: [], historyUntil: 8, start: 9 };

/** CHAIN_EVENTS and the leases on the test's server, with chain 1's node naming `canonical` at each height. */
const openStream = async (canonical: (n: number) => string | undefined) => {
  const window = await publishedWindowOn(bare.nc, async (n) => canonical(n));
  const jsm = await jetstreamManager(bare.nc);
  return { ...window, jsm, js: jetstream(bare.nc), readBack: () => publishedAfterIn(jsm, 1) };
};

/** Waits until chain 1's consumers were shown as many events as `expected`, and compares. */
const expectShown = async (
  events: Parameters<typeof shownEvents>[0],
  expected: ReadonlyArray<{ readonly kind: string }>,
) => {
  await eventually(async () => shownOfChain1(events).length >= expected.length, 10_000, "every message");
  expect(shownOfChain1(events)).toEqual(expected);
};

/** Blocks 11 and 12 of chain 1 published by a holder that stopped before saving them, chain 2's between. */
const publishUnsaved = async () => {
  const js = jetstream(bare.nc);
  const otherChain = (n: number) => encode({ ...blockWithLogs(n, []), chain_id: 2 });
  await Effect.runPromise(
    publishBlocks(js, [encode(blockWithLogs(11, [])), otherChain(500), otherChain(501)]),
  );
  await Effect.runPromise(publishBlocks(js, [otherChain(502), encode(blockWithLogs(12, []))]));
};

/**
 * Blocks 9 and 10 published and saved, 11 and 12 published by a holder that stopped before saving
 * them; then the node's chain is changed by `meanwhile` and a new holder starts: it takes in what was
 * published after its checkpoint and goes on with `then`. Answers what `then` answers, the next block
 * the holder reads, and what chain 1's consumers were shown once `shown` events arrived.
 */
const resumeAfterUnsaved = async <A>(
  meanwhile: (canonical: Map<number, string>) => void,
  then: (published: Parameters<Parameters<Window["asFollower"]>[1]>[0]) => Effect.Effect<A, unknown>,
  shown: number,
) => {
  const canonical = new Map<number, string>([9, 10, 11, 12].map((n) => [n, blockHash(n)] as const));
  const { events, asFollower, jsm, readBack } = await openStream((n) => canonical.get(n));
  try {
    // A follower takes the chain (nothing to take in; the checkpoint gets the stream's sequence) and
    // publishes and saves two blocks.
    const first = await asFollower(START, (published) =>
      Effect.gen(function* () {
        const adopted = yield* published.adoptPublished(readBack());
        yield* published.apply([encode(blockWithLogs(9, [])), encode(blockWithLogs(10, []))]);
        return adopted;
      }),
    );
    expect(first).toBe(0);
    await publishUnsaved();
    meanwhile(canonical);
    const resumed = await asFollower(START, (published) =>
      Effect.gen(function* () {
        const adopted = yield* published.adoptPublished(readBack());
        const answer = yield* then(published);
        return { adopted, answer, next: published.next() };
      }),
    );
    await eventually(async () => shownOfChain1(events).length >= shown, 10_000, "every message consumed");
    return { ...resumed, shown: shownOfChain1(events) };
  } finally {
    await endRun(events, jsm);
  }
};
type Window = Awaited<ReturnType<typeof openStream>>;

describe("blocks published but not saved", { timeout: 30_000 }, () => {
  it("behavior: reorganised away while no process followed the chain, they are removed at the head before the new branch", async () => {
    const b11 = branchB(11, blockHash(10));
    const b12 = branchB(12, b11.hash);
    const resumed = await resumeAfterUnsaved(
      (canonical) => {
        canonical.set(11, b11.hash);
        canonical.set(12, b12.hash);
      },
      (published) =>
        Effect.gen(function* () {
          // At the head, nothing new to read: the resume point is checked, as the follower does.
          const tip = yield* published.checkTip;
          if (tip === "replaced") yield* published.handleFork;
          yield* published.apply([encode(b11), encode(b12)]);
          return tip;
        }),
      7,
    );
    expect(resumed.adopted).toBe(2);
    expect(resumed.answer).toBe("replaced");
    expect(resumed.next).toBe(13);
    expect(resumed.shown).toEqual([
      { kind: "block", hash: blockHash(9) },
      { kind: "block", hash: blockHash(10) },
      { kind: "block", hash: blockHash(11) },
      { kind: "block", hash: blockHash(12) },
      { kind: "reorg", removed: [blockHash(12), blockHash(11)] },
      { kind: "block", hash: b11.hash },
      { kind: "block", hash: b12.hash },
    ]);
  });

  it("behavior: behind the head, only the ones the chain no longer has are removed", async () => {
    const b12 = branchB(12, blockHash(11));
    const b13 = branchB(13, b12.hash);
    const resumed = await resumeAfterUnsaved(
      (canonical) => canonical.set(12, b12.hash),
      // The next block read builds on the new branch: its parent hash reveals the fork.
      (published) =>
        Effect.gen(function* () {
          yield* published.apply([encode(b13)]);
          yield* published.apply([encode(b12), encode(b13)]);
        }),
      7,
    );
    expect(resumed.adopted).toBe(2);
    expect(resumed.next).toBe(14);
    expect(resumed.shown).toEqual([
      { kind: "block", hash: blockHash(9) },
      { kind: "block", hash: blockHash(10) },
      { kind: "block", hash: blockHash(11) },
      { kind: "block", hash: blockHash(12) },
      { kind: "reorg", removed: [blockHash(12)] },
      { kind: "block", hash: b12.hash },
      { kind: "block", hash: b13.hash },
    ]);
  });

  it("default: still on the chain, they are taken in and the holder reads on after them", async () => {
    const resumed = await resumeAfterUnsaved(
      (canonical) => canonical.set(13, blockHash(13)),
      (published) => published.apply([encode(blockWithLogs(13, []))]),
      5,
    );
    expect(resumed.adopted).toBe(2);
    expect(resumed.shown).toEqual([9, 10, 11, 12, 13].map((n) => ({ kind: "block", hash: blockHash(n) })));
    expect(resumed.next).toBe(14);
  });

  it("edge: a server that refuses ingest the read leaves the check out, and the holder reads on from its checkpoint", async () => {
    const { events, asFollower, jsm, readBack } = await openStream((n) => blockHash(n));
    // What nats.js rejects with when nats.conf does not allow the user STREAM.MSG.GET on the stream.
    const refused = async (): Promise<never> => {
      throw new Error('Permissions Violation for Publish to "$JS.API.STREAM.MSG.GET.CHAIN_EVENTS"');
    };
    const reading = readBack();
    try {
      await asFollower(START, (published) =>
        Effect.gen(function* () {
          yield* published.adoptPublished(reading);
          yield* published.apply([encode(blockWithLogs(9, []))]);
        }),
      );
      const resumed = await asFollower(START, (published) =>
        Effect.gen(function* () {
          const adopted = yield* published.adoptPublished({ ...reading, events: refused });
          return { adopted, next: published.next() };
        }),
      );
      expect(resumed).toEqual({ adopted: 0, next: 10 });
      // Any other failure to read fails the step, which is tried again.
      const failed = await asFollower(START, (published) =>
        Effect.either(
          published.adoptPublished({
            ...reading,
            events: async () => {
              throw new Error("timeout");
            },
          }),
        ),
      );
      expect(failed._tag).toBe("Left");
    } finally {
      await endRun(events, jsm);
    }
  });

  it("edge: a reorg published but not saved is taken in, not published again, and the epoch moves with it", async () => {
    const b12 = branchB(12, blockHash(11));
    const canonical = new Map<number, string>([9, 10, 11].map((n) => [n, blockHash(n)] as const));
    canonical.set(12, b12.hash);
    const { events, asFollower, jsm, js, readBack } = await openStream((n) => canonical.get(n));
    try {
      await asFollower(START, (published) =>
        Effect.gen(function* () {
          yield* published.adoptPublished(readBack());
          yield* published.apply([9, 10, 11, 12].map((n) => encode(blockWithLogs(n, []))));
        }),
      );
      // The holder found the reorg, published it and the new block 12, and stopped before saving.
      await Effect.runPromise(
        publishReorg(
          js,
          ChainReorg.make({
            version: BLOCK_MESSAGE_VERSION,
            chain_id: 1,
            common_ancestor: { number: 11, hash: blockHash(11) },
            removed: [{ number: 12, hash: blockHash(12) }],
          }),
          0,
        ),
      );
      await Effect.runPromise(publishBlocks(js, [encode(b12)], 1));
      const b13 = branchB(13, b12.hash);
      const resumed = await asFollower(START, (published) =>
        Effect.gen(function* () {
          const adopted = yield* published.adoptPublished(readBack());
          const tip = yield* published.checkTip;
          yield* published.apply([encode(b13)]);
          return { adopted, tip, next: published.next() };
        }),
      );
      expect(resumed).toEqual({ adopted: 2, tip: "same", next: 14 });
      const expected = [
        { kind: "block", hash: blockHash(9) },
        { kind: "block", hash: blockHash(10) },
        { kind: "block", hash: blockHash(11) },
        { kind: "block", hash: blockHash(12) },
        { kind: "reorg", removed: [blockHash(12)] },
        { kind: "block", hash: b12.hash },
        { kind: "block", hash: b13.hash },
      ];
      await expectShown(events, expected);
      // Published in the reorg's epoch, as its holder would have.
      const last = await jsm.streams.getMessage("CHAIN_EVENTS", { last_by_subj: "chain.1.block" });
      expect(last?.header?.get("Nats-Msg-Id")).toBe(`1:${b13.hash}~1`);
    } finally {
      await endRun(events, jsm);
    }
  });

  it("edge: blocks whose save failed are taken in before the retried step, so a reorg of them is still seen", async () => {
    const b12 = branchB(12, blockHash(11));
    const b13 = branchB(13, b12.hash);
    const canonical = new Map<number, string>([9, 10, 11, 12].map((n) => [n, blockHash(n)] as const));
    const { events, asFollower, jsm, readBack } = await openStream((n) => canonical.get(n));
    let failSaves = false;
    // A KV store that refuses writes for a while: the lease survives (its fence holds), the save fails.
    const flaky = (lease: HeldLease): HeldLease => ({
      ...lease,
      save: (checkpoint) =>
        failSaves
          ? Effect.fail(new LeaseStoreError({ key: "chain.1", cause: new Error("timeout") }))
          : lease.save(checkpoint),
    });
    try {
      const outcome = await asFollower(
        START,
        (published) =>
          Effect.gen(function* () {
            yield* published.adoptPublished(readBack());
            yield* published.apply([9, 10].map((n) => encode(blockWithLogs(n, []))));
            failSaves = true;
            const failed = yield* Effect.either(
              published.apply([11, 12].map((n) => encode(blockWithLogs(n, [])))),
            );
            failSaves = false;
            // Before the retry the chain replaced block 12.
            canonical.set(12, b12.hash);
            canonical.set(13, b13.hash);
            const adopted = yield* published.adoptPublished(readBack());
            yield* published.apply([encode(b13)]);
            yield* published.apply([encode(b12), encode(b13)]);
            return { failed: failed._tag, adopted, next: published.next() };
          }),
        flaky,
      );
      expect(outcome).toEqual({ failed: "Left", adopted: 2, next: 14 });
      const expected = [
        ...[9, 10, 11, 12].map((n) => ({ kind: "block", hash: blockHash(n) })),
        { kind: "reorg", removed: [blockHash(12)] },
        { kind: "block", hash: b12.hash },
        { kind: "block", hash: b13.hash },
      ];
      await expectShown(events, expected);
    } finally {
      await endRun(events, jsm);
    }
  });

  it("edge: blocks stored above one that was not (a publish that failed part-way) are removed and published again in order", async () => {
    const { events, asFollower, jsm, js, readBack } = await openStream((n) => blockHash(n));
    try {
      await asFollower(START, (published) =>
        Effect.gen(function* () {
          yield* published.adoptPublished(readBack());
          yield* published.apply([9, 10].map((n) => encode(blockWithLogs(n, []))));
        }),
      );
      // Of 11, 12 and 13, published together, 11 was refused and the others stored.
      await Effect.runPromise(
        publishBlocks(
          js,
          [12, 13].map((n) => encode(blockWithLogs(n, []))),
        ),
      );
      const resumed = await asFollower(START, (published) =>
        Effect.gen(function* () {
          const adopted = yield* published.adoptPublished(readBack());
          const next = published.next();
          yield* published.apply([11, 12, 13].map((n) => encode(blockWithLogs(n, []))));
          return { adopted, next };
        }),
      );
      expect(resumed).toEqual({ adopted: 2, next: 11 });
      const expected = [
        ...[9, 10, 12, 13].map((n) => ({ kind: "block", hash: blockHash(n) })),
        { kind: "reorg", removed: [blockHash(13), blockHash(12)] },
        ...[11, 12, 13].map((n) => ({ kind: "block", hash: blockHash(n) })),
      ];
      await expectShown(events, expected);
    } finally {
      await endRun(events, jsm);
    }
  });

  it("edge: the repair is found again when its reorg could not be published, and above an empty window too", async () => {
    const { events, asFollower, jsm, js, readBack } = await openStream((n) => blockHash(n));
    let fenceFails = false;
    const fenced = (lease: HeldLease): HeldLease => ({
      ...lease,
      fence: Effect.suspend(() =>
        fenceFails ? Effect.fail(new LeaseLost({ key: "chain.1", reason: "test" })) : lease.fence,
      ),
    });
    try {
      // Nothing published yet: the window is empty and block 9 is due. 9 was refused, 10 and 11 stored.
      await asFollower(START, (published) => published.adoptPublished(readBack()));
      await Effect.runPromise(
        publishBlocks(
          js,
          [10, 11].map((n) => encode(blockWithLogs(n, []))),
        ),
      );
      const outcome = await asFollower(
        START,
        (published) =>
          Effect.gen(function* () {
            fenceFails = true;
            const first = yield* Effect.either(published.adoptPublished(readBack()));
            fenceFails = false;
            const again = yield* published.adoptPublished(readBack());
            const next = published.next();
            yield* published.apply([9, 10, 11].map((n) => encode(blockWithLogs(n, []))));
            return { first: first._tag, again, next };
          }),
        fenced,
      );
      expect(outcome).toEqual({ first: "Left", again: 2, next: 9 });
      const expected = [
        ...[10, 11].map((n) => ({ kind: "block", hash: blockHash(n) })),
        { kind: "reorg", removed: [blockHash(11), blockHash(10)] },
        ...[9, 10, 11].map((n) => ({ kind: "block", hash: blockHash(n) })),
      ];
      await expectShown(events, expected);
      expect(events.events.find((event) => event.kind === "reorg")).toMatchObject({
        reorg: { common_ancestor: { number: 8, hash: blockHash(8) } },
      });
    } finally {
      await endRun(events, jsm);
    }
  });
});
