import { Context, Effect, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import * as Presence from "../../../src/presence/Presence.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import { withStallableStreamReads } from "../../support/silentWatch.js";

/** The presence watch check in this test, ms (5 s in the service). */
const CHECK_MS = 300;

let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});

afterAll(async () => {
  await nats?.stop();
});

describe("an API process's view of who is alive, with its presence watch stalled", () => {
  it("behavior: an API process that started beating while the watch showed nothing is counted once the check opens the watch again", async () => {
    // As the api user of the real nats.conf, whose grants the check needs.
    const api = await nats.connectAs("api");
    const { kv, stall, opened } = withStallableStreamReads(
      await Effect.runPromise(openBucket(api, "presence")),
    );
    const scope = await Effect.runPromise(Scope.make());
    try {
      await Effect.runPromise(Scope.extend(Presence.heartbeat(api, "api"), scope));
      const context = await Effect.runPromise(
        Layer.buildWithScope(Presence.layer(kv, Date.now, CHECK_MS), scope),
      );
      const presence = Context.get(context, Presence.Presence);
      await eventually(async () => presence.liveInstances().api === 1, 5_000, "this process's heartbeat");

      stall();
      // Another API process starts (its first heartbeat goes out at once).
      await Effect.runPromise(Scope.extend(Presence.heartbeat(await nats.connectAs("api"), "api"), scope));
      await eventually(async () => presence.liveInstances().api === 2, 10_000, "the second process");
      expect(presence.liveInstances().api).toBe(2);
      // The stall took effect on the follower's own read, and the check made a new one.
      expect(opened()).toBeGreaterThanOrEqual(2);
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);
});
