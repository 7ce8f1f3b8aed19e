import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../../src/contracts/endpoints.js";
import { makeRouter } from "../../../src/gateway/router.js";

const route = makeRouter(ENDPOINTS);
const wallet = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045";

describe("router", () => {
  it("default: matches templates and extracts decoded path parameters", () => {
    const match = route("GET", `/v1/evm/balances/${wallet}/token/native`);
    expect(match).toMatchObject({ kind: "found", params: { address: wallet, token_address: "native" } });
    expect(match.kind === "found" && match.endpoint.operationId).toBe("getTokenBalance");
    expect(route("GET", `/v1/evm/balances/${wallet}/`)).toMatchObject({
      kind: "found",
      params: { address: wallet },
    });
  });

  it("behavior: methods on one path route to different operations", () => {
    const path = "/beta/evm/subscriptions/webhooks/0d6c2a2e-0000-4000-8000-000000000000";
    const ops = ["GET", "PATCH", "DELETE"].map((m) => {
      const match = route(m, path);
      return match.kind === "found" ? match.endpoint.operationId : match.kind;
    });
    expect(ops).toEqual(["getWebhook", "updateWebhook", "deleteWebhook"]);
  });

  it("error: unknown paths, wrong methods and bad percent-encoding", () => {
    expect(route("GET", "/v2/evm/balances/x")).toEqual({ kind: "notFound" });
    expect(route("POST", "/v1/evm/supported-chains")).toEqual({ kind: "wrongMethod", allow: ["GET"] });
    expect(route("GET", "/v1/evm/balances/%E0%A4%A")).toEqual({ kind: "badEncoding" });
  });
});
