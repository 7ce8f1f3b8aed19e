import { Effect, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyDirectory, layer as keyDirectoryLayer } from "../../../src/api/keys/KeyDirectory.js";
import { createKey, revokeKey } from "../../../src/api/keys/KeyStore.js";
import { Unauthenticated } from "../../../src/contracts/ApiError.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { adminBuckets } from "../../support/anvilService.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import { withSilentWatches } from "../../support/silentWatch.js";

/** The directory's watch check in this test, ms (5 s in the service). */
const CHECK_MS = 300;

let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});

afterAll(async () => {
  await nats?.stop();
});

describe("the API worker's key directory, with its watch stalled", () => {
  it("behavior: a key revoked while the keys watch showed nothing is refused from memory once the watch check opens it again", async () => {
    const admin = await adminBuckets(await nats.connectAs("admin"));
    const { key, record } = await Effect.runPromise(createKey(admin, "stalled-watch"));

    // As the api user of the real nats.conf, whose grants the check needs; the first keys watch
    // shows nothing, as one stalled by a lost nats-server does.
    const api = await nats.connectAs("api");
    const buckets = {
      keys: withSilentWatches(await Effect.runPromise(openBucket(api, "keys")), 1),
      teams: await Effect.runPromise(openBucket(api, "teams")),
    };
    const scope = await Effect.runPromise(Scope.make());
    try {
      const context = await Effect.runPromise(
        Layer.buildWithScope(keyDirectoryLayer(buckets, CHECK_MS), scope),
      );
      const directory = context.unsafeMap.get(KeyDirectory.key) as KeyDirectory["Type"];
      await Effect.runPromise(revokeKey(admin, record.key_id));

      // From memory, not from a read of the bucket: only a watch opened again can have shown it.
      await eventually(
        async () => {
          const answer = directory.authenticateCached(key);
          return answer instanceof Unauthenticated && answer.reason === "RevokedKey";
        },
        10_000,
        "the revocation in the directory's memory",
      );
      const refused = await Effect.runPromise(Effect.flip(directory.authenticate(key)));
      expect(refused.reason).toBe("RevokedKey");
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);
});
