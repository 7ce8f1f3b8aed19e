/**
 * A client of the service written only against the types openapi-typescript
 * generates from GET /openapi.json (`./api.js`, made by the test next to this
 * file): it calls every operation and prints each one's status as JSON.
 * It typechecks against those types, so a document that misdescribes a
 * parameter, a body or a response breaks this file, not just a request.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const client = createClient<paths>({
  baseUrl: env("BASE_URL"),
  headers: { "X-Svc-Api-Key": env("API_KEY") },
});
const whale = env("WHALE");
const lp = env("LP");
const token = env("TOKEN");
const statuses: Record<string, number> = {};
const facts: Record<string, unknown> = {};

const balances = await client.GET("/v1/evm/balances/{address}", {
  params: { path: { address: whale }, query: { chain_ids: "1", metadata: "pools", historical_prices: "24" } },
});
statuses.getBalances = balances.response.status;
const entries: ReadonlyArray<components["schemas"]["BalanceEntry"]> = balances.data?.balances ?? [];
facts.whaleValueUsd = entries.reduce((sum, entry) => sum + (entry.value_usd ?? 0), 0);

const tokenBalance = await client.GET("/v1/evm/balances/{address}/token/{token_address}", {
  params: { path: { address: whale, token_address: "native" }, query: { chain_ids: "1" } },
});
statuses.getTokenBalance = tokenBalance.response.status;

const positions = await client.GET("/beta/evm/defi/positions/{address}", {
  params: { path: { address: lp }, query: { chain_ids: "1" } },
});
statuses.getDefiPositions = positions.response.status;
// The discriminator narrows each entry to its type's fields.
facts.nftRanges = (positions.data?.positions ?? []).flatMap((position) =>
  position.type === "Nft" ? position.positions.map((nft) => [nft.tick_lower, nft.tick_upper]) : [],
);
facts.positionTypes = [...new Set((positions.data?.positions ?? []).map((position) => position.type))];

const created = await client.POST("/beta/evm/subscriptions/webhooks", {
  body: { name: "typed client", url: "https://example.com/typed", type: "activities", addresses: [whale] },
});
statuses.createWebhook = created.response.status;
const webhookId = created.data?.id ?? "00000000-0000-4000-8000-000000000000";
facts.secretShown = created.data?.secret?.startsWith("whsec_") ?? false;
const byId = { params: { path: { webhookId } } };

statuses.listWebhooks = (
  await client.GET("/beta/evm/subscriptions/webhooks", { params: { query: { limit: "10" } } })
).response.status;
statuses.getWebhook = (
  await client.GET("/beta/evm/subscriptions/webhooks/{webhookId}", byId)
).response.status;
const updated = await client.PATCH("/beta/evm/subscriptions/webhooks/{webhookId}", {
  ...byId,
  body: { active: false, activity_type: "swap" },
});
statuses.updateWebhook = updated.response.status;
facts.pausedActive = updated.data?.active;
statuses.getWebhookAddresses = (
  await client.GET("/beta/evm/subscriptions/webhooks/{webhookId}/addresses", byId)
).response.status;
statuses.replaceWebhookAddresses = (
  await client.PUT("/beta/evm/subscriptions/webhooks/{webhookId}/addresses", {
    ...byId,
    body: { addresses: [whale, lp] },
  })
).response.status;
statuses.updateWebhookAddresses = (
  await client.PATCH("/beta/evm/subscriptions/webhooks/{webhookId}/addresses", {
    ...byId,
    body: { remove_addresses: [lp] },
  })
).response.status;
statuses.rotateWebhookSecret = (
  await client.POST("/beta/evm/subscriptions/webhooks/{webhookId}/secret/rotate", byId)
).response.status;
statuses.deleteWebhook = (
  await client.DELETE("/beta/evm/subscriptions/webhooks/{webhookId}", byId)
).response.status;

const chains = await client.GET("/v1/evm/supported-chains");
statuses.getSupportedChains = chains.response.status;
facts.chainIds = (chains.data?.chains ?? []).map((chain) => chain.chain_id);
statuses.getNativeLogo = (
  await client.GET("/beta/token/logo/{chain_id}", { params: { path: { chain_id: "1" } }, parseAs: "text" })
).response.status;
statuses.getTokenLogo = (
  await client.GET("/beta/token/logo/{chain_id}/{token_address}", {
    params: { path: { chain_id: "1", token_address: token } },
    parseAs: "text",
  })
).response.status;
const account = await client.GET("/v1/account");
statuses.getAccount = account.response.status;
facts.cuUsed = account.data?.cu_used_this_month;
const health = await client.GET("/healthz");
statuses.getHealth = health.response.status;
facts.health = health.data?.status;

process.stdout.write(`${JSON.stringify({ statuses, facts })}\n`);
