/**
 * Calls the generated client gets wrong on purpose: the test expects the
 * compiler to refuse each line marked below, which shows the types are the
 * document's and not `any`.
 */
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const client = createClient<paths>({ baseUrl: "http://localhost:8080" });

// MISUSE: a path the document does not have.
await client.GET("/v1/evm/balance/{address}", { params: { path: { address: "0x" } } });
// MISUSE: a webhook type outside the enum.
await client.POST("/beta/evm/subscriptions/webhooks", {
  body: { name: "x", url: "https://example.com", type: "everything", addresses: [] },
});
// MISUSE: a field no position type has.
const positions = await client.GET("/beta/evm/defi/positions/{address}", {
  params: { path: { address: "0x" } },
});
for (const position of positions.data?.positions ?? []) if (position.type === "AmmV2") position.tick_lower;
