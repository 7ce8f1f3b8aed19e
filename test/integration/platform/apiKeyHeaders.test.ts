import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilService, startAnvilService } from "../../support/anvilService.js";

let env: AnvilService;
let key: string;

const account = (headers: Record<string, string>) => fetch(`${env.service.baseUrl}/v1/account`, { headers });

beforeAll(async () => {
  // A migrating client's old header, named as an operator would write it.
  env = await startAnvilService(["default"], { apiKeyHeaders: ["x-api-key"] });
  key = (await env.createKey("migrants")).key;
});

afterAll(async () => {
  await env?.stop();
});

describe("API_KEY_HEADERS: the key in a migrating client's old header", () => {
  it("default: the key in the extra header authenticates like X-Svc-Api-Key", async () => {
    for (const headers of [
      { "x-api-key": key },
      { "X-Api-Key": key },
      { "x-svc-api-key": key, "x-api-key": key },
    ]) {
      const res = await account(headers);
      expect(res.status, Object.keys(headers).join()).toBe(200);
      expect(await res.json()).toMatchObject({ team_name: "migrants" });
    }
    const unknown = await account({ "x-api-key": `svc_${"A".repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ code: "UNKNOWN_API_KEY" });
  });

  it("error: two different keys in the two headers are a 400, whichever is valid", async () => {
    const other = `svc_${"B".repeat(43)}`;
    for (const headers of [
      { "x-svc-api-key": key, "x-api-key": other },
      { "x-svc-api-key": other, "x-api-key": key },
    ]) {
      const res = await account(headers);
      expect(res.status).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      expect(await res.json()).toEqual({
        error: "The API key is given in x-svc-api-key and x-api-key with different values; send it once.",
        code: "CONFLICTING_API_KEYS",
      });
    }
  });

  it("behavior: browsers are told they may send the extra header", async () => {
    const preflight = await fetch(`${env.service.baseUrl}/v1/account`, { method: "OPTIONS" });
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "content-type, x-svc-api-key, x-api-key, x-request-id, if-none-match",
    );
  });
});
