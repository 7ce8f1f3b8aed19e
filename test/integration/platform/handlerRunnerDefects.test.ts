import { headers as natsHeaders } from "@nats-io/transport-node";
import { Effect, Exit, Fiber, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Route, route } from "../../../src/api/Handler.js";
import { serveRoutes } from "../../../src/api/HandlerRunner.js";
import { KeyDirectory } from "../../../src/api/keys/KeyDirectory.js";
import { RateLimiter } from "../../../src/api/RateLimiter.js";
import { balances } from "../../../src/contracts/Balances.js";
import { HEADER } from "../../../src/contracts/Envelope.js";
import { UsageBook } from "../../../src/usage/UsageBook.js";
import { UsageRecorder } from "../../../src/usage/UsageRecorder.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";

let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});

afterAll(async () => {
  await nats?.stop();
});

/** A key directory whose store fails in a way it does not type (a defect), for keys not in memory. */
const brokenDirectory = Layer.succeed(KeyDirectory, {
  authenticate: () => Effect.die(new Error("the keys bucket answered garbage")),
  authenticateCached: () => undefined,
  team: () => undefined,
  teams: () => [],
});

const quietUsage = Layer.mergeAll(
  Layer.succeed(UsageRecorder, { record: () => undefined, flush: Effect.void }),
  Layer.succeed(UsageBook, { monthToDate: () => 0, rows: () => Effect.succeed([]) }),
);

describe("the API worker's request runner", () => {
  it("error: a defect while authenticating a key is a 500 naming the request id, and the worker keeps answering", async () => {
    const api = await nats.connectAs("api");
    const gateway = await nats.connectAs("gateway");
    const scope = Effect.runSync(Scope.make());
    try {
      const answered: Route<never> = route(balances, () => Effect.succeed({ cu: 1, body: "{}" }) as never);
      const serving = serveRoutes(api, [answered], {
        limiter: new RateLimiter(),
        defaultLimit: { rate: 100, burst: 100 },
      }).pipe(Effect.provide(Layer.merge(brokenDirectory, quietUsage)), Scope.extend(scope));
      const fiber = Effect.runFork(serving);
      const ask = async (): Promise<{ status: string | undefined; body: string }> => {
        const h = natsHeaders();
        h.set(HEADER.apiKey, "sk_not_mirrored_yet");
        const reply = await gateway.request(
          balances.subject,
          JSON.stringify({ params: { address: `0x${"ab".repeat(20)}` }, query: {} }),
          { headers: h, timeout: 3_000 },
        );
        return { status: reply.headers?.get(HEADER.status), body: reply.string() };
      };
      // The runner subscribes once its fiber runs: until then a request has no responder.
      await eventually(
        () =>
          ask().then(
            () => true,
            () => false,
          ),
        5_000,
        "the runner answers",
      );
      for (let i = 0; i < 2; i++) {
        const { status, body } = await ask();
        expect(status).toBe("500");
        expect(body).toMatch(/Internal error; quote request id [0-9a-f-]{36}/);
      }
      await Effect.runPromise(Fiber.interrupt(fiber));
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await api.close();
      await gateway.close();
    }
  });
});
