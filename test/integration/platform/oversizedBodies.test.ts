import { Effect, Exit, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhook } from "../../../src/contracts/Webhooks.js";
import { runGateway } from "../../../src/gateway/Gateway.js";
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from "../../../src/gateway/lingeringClose.js";
import { MAX_BODY_BYTES } from "../../../src/gateway/readBody.js";
import { freePort } from "../../../src/lib/freePort.js";
import { makeMetrics } from "../../../src/metrics/Metrics.js";
import { uploadEndlessBody, uploadPartThenStop, uploadWholeBody } from "../../support/deafUploads.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import type { UploadOutcome } from "../../support/oversizedUploads.js";
import { runTs } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";

const MiB = 1024 * 1024;
const PATH = createWebhook.path;
const REFUSAL = {
  error: `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
  code: "PAYLOAD_TOO_LARGE",
};

let nats: TestNats;
let port: number;
let url: string;
let scope: Scope.CloseableScope;
const metrics = makeMetrics({ teams: [] });

beforeAll(async () => {
  nats = await startTestNats({ provision: false });
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  scope = Effect.runSync(Scope.make());
  // No worker: every refusal here is the gateway's own, made before anything is forwarded.
  const gateway = runGateway(await nats.connectAs("gateway"), {
    port,
    host: "127.0.0.1",
    endpoints: [createWebhook],
    openApi: {},
    requestTimeoutMs: 5_000,
    metrics,
  });
  await Effect.runPromise(Scope.extend(gateway, scope));
});

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void));
  await nats?.stop();
});

const streamOf = (bytes: number) =>
  new ReadableStream<Uint8Array>({
    start: (controller) => {
      for (let i = 0; i < bytes / (64 * 1024); i++) controller.enqueue(new Uint8Array(64 * 1024).fill(0x61));
      controller.close();
    },
  });

describe("request bodies over the limit", () => {
  it("error: Node's fetch from another process reads the 413 JSON for 3 and 20 MiB bodies, sized or streamed", async () => {
    // Five rounds: without a lingering close, a quarter to a half of these uploads failed with `write EPIPE`.
    const run = await runTs("test/support/oversizedUploads.ts", [`${url}${PATH}`, "5", "3", "20"], {});
    expect(run.code, run.stderr).toBe(0);
    const outcomes = JSON.parse(run.stdout) as ReadonlyArray<UploadOutcome>;
    expect(outcomes).toHaveLength(20);
    for (const outcome of outcomes) {
      expect(outcome).toEqual({
        mib: outcome.mib,
        framing: outcome.framing,
        status: 413,
        connection: "close",
        body: REFUSAL,
      });
    }
  });

  it("error: fetch gets the 413 for 3 MiB, sized and streamed, and its next request is answered", async () => {
    const sized = await fetch(`${url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.alloc(3 * MiB, 0x61),
    });
    expect(sized.status).toBe(413);
    expect(sized.headers.get("x-compute-units")).toBe("0");
    expect(await sized.json()).toEqual(REFUSAL);
    const streamed = await fetch(`${url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamOf(3 * MiB),
      duplex: "half",
    });
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual(REFUSAL);
    // The refused connections were closed, not pooled: this one is new, and reaches the bus.
    const next = await fetch(`${url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(next.status).toBe(503);
    expect(await next.json()).toMatchObject({ code: "NO_RESPONDER" });
  });

  it("error: a client that reads only after sending its whole 8 MiB body gets the 413 and a clean close", async () => {
    const result = await uploadWholeBody(port, PATH, Buffer.alloc(8 * MiB, 0x61));
    // A reset or a broken pipe here is what the client would see instead of the answer.
    expect(result.error).toBeUndefined();
    expect(result.serverEnded).toBe(true);
    expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.received.toLowerCase()).toContain("connection: close\r\n");
    expect(result.received.endsWith(JSON.stringify(REFUSAL))).toBe(true);
  });

  it("error: a client that stops sending after the 413 gets nothing more on that connection", async () => {
    const result = await uploadPartThenStop(port, PATH, 3 * MiB);
    // The cut-short body is a parse error to Node; answering it too would append a 400 to the 413.
    expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.received.endsWith(JSON.stringify(REFUSAL))).toBe(true);
    expect(result.received).not.toContain("BAD_HTTP_REQUEST");
  });

  it("behavior: each refusal is counted once as a 413, whichever side closed its connection", async () => {
    const refusals = async () => {
      const counter = await metrics.registry.getSingleMetric("svc_http_requests_total")?.get();
      const sample = counter?.values.find((v) => v.labels.route === PATH && v.labels.status === "413");
      return sample?.value ?? 0;
    };
    const before = await refusals();
    // One client stops sending once it has the answer; the other sends all, then the gateway closes.
    expect((await uploadPartThenStop(port, PATH, 3 * MiB)).received).toMatch(/^HTTP\/1\.1 413 /);
    expect((await uploadWholeBody(port, PATH, Buffer.alloc(2 * MiB, 0x61))).serverEnded).toBe(true);
    await eventually(async () => (await refusals()) >= before + 2, 10_000, "two more 413s counted");
    expect(await refusals()).toBe(before + 2);
  });

  it("error: a body that never ends is cut off after a bounded amount, and the gateway keeps serving", async () => {
    const result = await uploadEndlessBody(port, PATH);
    expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
    // What the gateway reads, plus what socket buffers on both sides hold when it cuts.
    expect(result.sent).toBeLessThan(MAX_BODY_BYTES + LINGER_MAX_BYTES + 32 * MiB);
    // Cut by the byte bound, well before the time bound.
    expect(result.elapsedMs).toBeLessThan(LINGER_MAX_MS);
    const next = await fetch(`${url}/openapi.json`);
    expect(next.status).toBe(200);
  });
});
