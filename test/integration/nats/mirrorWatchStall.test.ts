import { Kvm } from "@nats-io/kv";
import { Effect, Exit, Schema, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mirrorBucket } from "../../../src/nats/mirrorBucket.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import { withStallableWatches } from "../../support/silentWatch.js";

/** The mirror's watch check in this test, ms (5 s in the service). */
const CHECK_MS = 300;

let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});

afterAll(async () => {
  await nats?.stop();
});

describe("a bucket mirror whose watch stalls after it started", () => {
  it("behavior: values changed, deleted and purged while the watch showed nothing are mirrored as the bucket holds them once the check opens it again", async () => {
    // The webhook catalog's case: the api user on the real nats.conf, records under `hook.`.
    const api = await nats.connectAs("api");
    const writer = await new Kvm(await nats.connectAs("api")).open("webhooks");
    await writer.put("hook.kept", JSON.stringify("v1"));
    await writer.put("hook.changed", JSON.stringify("v1"));
    await writer.put("hook.deleted", JSON.stringify("v1"));
    await writer.put("hook.purged", JSON.stringify("v1"));
    const { kv, stall, opened } = withStallableWatches(await new Kvm(api).open("webhooks"));
    const scope = await Effect.runPromise(Scope.make());
    try {
      const mirror = await Effect.runPromise(
        Scope.extend(
          mirrorBucket(kv, {
            key: "hook.>",
            decode: Schema.parseJson(Schema.String),
            stallCheckMs: CHECK_MS,
          }),
          scope,
        ),
      );
      await Effect.runPromise(mirror.ready);
      expect(mirror.get("deleted")).toBe("v1");

      stall();
      await writer.put("hook.changed", JSON.stringify("v2"));
      await writer.delete("hook.deleted");
      await writer.purge("hook.purged");
      await writer.put("hook.added", JSON.stringify("v1"));

      await eventually(
        async () =>
          mirror.get("changed") === "v2" &&
          mirror.get("deleted") === undefined &&
          mirror.get("purged") === undefined &&
          mirror.get("added") === "v1",
        10_000,
        "the changes in the mirror",
      );
      expect(
        mirror
          .entries()
          .map((e) => e.key)
          .sort(),
      ).toEqual(["added", "changed", "kept"]);
      // The stall took effect on the follower's own read, and the check made a new one.
      expect(opened()).toBeGreaterThanOrEqual(2);
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);
});
