import { headers as natsHeaders } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilService, startAnvilService } from "../../support/anvilService.js";

let env: AnvilService;
let key: string;

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const WEBHOOKS = "/beta/evm/subscriptions/webhooks";
const ADDRESSES = `${WEBHOOKS}/0d9ad0c5-6f5e-4a39-8e8a-8b8a8a8a8a8a/addresses`;

const send = (method: string, path: string, body: string) =>
  fetch(`${env.service.baseUrl}${path}`, {
    method,
    headers: { "x-svc-api-key": key, "content-type": "application/json" },
    body,
  });

/** A request straight on a worker subject, the way another service on the bus calls it. */
const overNats = async (subject: string, data: string) => {
  const nc = await env.nats.connectAs("gateway");
  const h = natsHeaders();
  h.set("X-Svc-Api-Key", key);
  const reply = await nc.request(subject, data, { headers: h, timeout: 5_000 });
  return {
    status: reply.headers?.get("Svc-Status"),
    body: reply.json<{ error: string; code: string }>(),
    size: reply.data.length,
  };
};

beforeAll(async () => {
  env = await startAnvilService();
  key = (await env.createKey("acme")).key;
});

afterAll(async () => {
  await env?.stop();
});

describe("hostile request bodies", () => {
  it("error: 5,000 nested arrays are a 400 naming the nesting limit on POST and PATCH, not a 503", async () => {
    const body = nested(5000);
    expect(body.length).toBe(10_000);
    for (const [method, path] of [
      ["POST", WEBHOOKS],
      ["PATCH", ADDRESSES],
    ] as const) {
      const res = await send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      expect(await res.json()).toEqual({
        error: "The request body nests JSON arrays and objects more than 32 levels deep.",
        code: "JSON_TOO_DEEP",
      });
    }
  });

  it("error: a refused body is never echoed back, at 1,000 levels or within the limit", async () => {
    const deep = await send("POST", WEBHOOKS, nested(1000));
    expect(deep.status).toBe(400);
    expect((await deep.text()).length).toBeLessThan(200);
    // 30 levels pass the limit and reach the worker, whose schema refuses the shape.
    const shallow = await send("POST", WEBHOOKS, nested(30));
    expect(shallow.status).toBe(400);
    const answer = (await shallow.json()) as { error: string; code: string };
    expect(answer.code).toBe("INVALID_BODY");
    expect(answer.error).toBe("The request body must be a JSON object (got an array).");
    const inField = await send(
      "POST",
      WEBHOOKS,
      JSON.stringify({
        name: JSON.parse(nested(30)),
        url: "https://x.example",
        type: "balances",
        addresses: [],
      }),
    );
    expect(await inField.json()).toEqual({
      error: 'body field "name" must be a string (got an array).',
      code: "INVALID_BODY",
    });
  });

  it("error: over NATS, a worker answers the same deep body with a 400 and keeps serving", async () => {
    const deep = await overNats(
      "svc.beta.evm.webhooks.create",
      `{"params":{},"query":{},"body":${nested(5000)}}`,
    );
    expect(deep.status).toBe("400");
    expect(deep.body).toEqual({
      error: "The request body nests JSON arrays and objects more than 32 levels deep.",
      code: "JSON_TOO_DEEP",
    });
    expect(deep.size).toBeLessThan(200);
    const fine = await overNats("svc.beta.evm.webhooks.list", '{"params":{},"query":{}}');
    expect(fine.status).toBe("200");
    // The HTTP path through the same worker still answers too.
    expect(
      (await fetch(`${env.service.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } })).status,
    ).toBe(200);
  });
});
