import { freshSecrets } from "../../src/webhooks/secrets/signingSecret.js";
import { WebhookRecord } from "../../src/webhooks/WebhookRecord.js";

/** A stored webhook for tests: an active `balances` webhook with no filters, with `overrides` applied. */
export const webhookRecord = (overrides: Partial<ConstructorParameters<typeof WebhookRecord>[0]> = {}) => {
  const now = new Date().toISOString();
  return new WebhookRecord({
    id: "01900000-0000-7000-8000-000000000001",
    team_id: "TEAM",
    name: "test",
    type: "balances",
    url: "https://example.com/hook",
    active: true,
    created_at: now,
    updated_at: now,
    chain_ids: null,
    transaction_type: null,
    counterparty: null,
    activity_type: null,
    asset_type: null,
    token_address: null,
    secrets: freshSecrets(),
    ...overrides,
  });
};
