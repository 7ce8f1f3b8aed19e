import { Effect, Exit, Schema, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account } from "../../../src/contracts/Account.js";
import { NoParams, NoQuery } from "../../../src/contracts/Common.js";
import { endpoint } from "../../../src/contracts/Endpoint.js";
import { runGateway } from "../../../src/gateway/Gateway.js";
import { freePort } from "../../../src/lib/freePort.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

let nats: TestNats;

const slow = endpoint({
  operationId: "slow",
  method: "GET",
  path: "/slow",
  subject: "svc.test.slow",
  auth: "public",
  group: "test",
  summary: "answers when the test lets the worker answer",
  params: NoParams,
  query: NoQuery,
  body: undefined,
  response: Schema.Unknown,
  responseContentType: "application/json",
});

const startGateway = async (requestTimeoutMs: number) => {
  const nc = await nats.connectAs("gateway");
  const port = await freePort();
  const scope = Effect.runSync(Scope.make());
  await Effect.runPromise(
    Scope.extend(runGateway(nc, { port, endpoints: [account, slow], openApi: {}, requestTimeoutMs }), scope),
  );
  return { url: `http://127.0.0.1:${port}`, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};

beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats?.stop();
});

describe("gateway edge cases", () => {
  it("error: no worker serving the subject is a 503 JSON answer, not a hang", async () => {
    // A request timeout far beyond any slowness of the machine: an answer well before it is no wait for it.
    const gateway = await startGateway(40_000);
    const started = Date.now();
    const res = await fetch(`${gateway.url}/v1/account`);
    expect(res.status).toBe(503);
    expect(res.headers.get("x-compute-units")).toBe("0");
    expect(await res.json()).toMatchObject({ code: "NO_RESPONDER" });
    expect(Date.now() - started).toBeLessThan(20_000);
    await gateway.close();
  });

  it("error: a worker that does not answer in time is a 504", async () => {
    const worker = await nats.connectAs("api");
    worker.subscribe("svc.v1.account.get", { callback: () => undefined });
    await worker.flush();
    const gateway = await startGateway(300);
    const res = await fetch(`${gateway.url}/v1/account`);
    expect(res.status).toBe(504);
    expect(res.headers.get("x-compute-units")).toBe("0");
    expect(await res.json()).toMatchObject({ code: "UPSTREAM_TIMEOUT" });
    await gateway.close();
  });

  it("behavior: shutdown lets in-flight requests finish and then refuses new connections", async () => {
    const worker = await nats.connectAs("api");
    // The worker answers only when told: the request is in flight for as long as the test needs.
    let answer: () => void = () => undefined;
    const received = new Promise<void>((resolve) =>
      worker.subscribe("svc.test.slow", {
        callback: (_, msg) => {
          answer = () => msg.respond(JSON.stringify({ done: true }));
          resolve();
        },
      }),
    );
    await worker.flush();
    const gateway = await startGateway(30_000);
    const inFlight = fetch(`${gateway.url}/slow`);
    await received;
    const closing = gateway.close();
    answer();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closing;
    await expect(fetch(`${gateway.url}/slow`)).rejects.toThrow();
  });
});
