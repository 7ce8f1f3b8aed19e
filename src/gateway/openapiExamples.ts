import {
  type ErrorBody,
  errorBody,
  InvalidRequest,
  NotFound,
  QuotaExceeded,
  RateLimited,
  Unauthenticated,
} from "../contracts/ApiError.js";

/**
 * One example body per success response, by operationId, for the OpenAPI
 * document: what a client sees from a devnet-like deployment. A unit test
 * decodes each with its endpoint's response schema, so an example cannot
 * drift from what the service answers.
 */

const WALLET = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045";
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const BASE_URL = "https://wallet-data.example.com";

const webhook = {
  id: "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b",
  team_id: "team_2f1e3d4c5b6a7988",
  name: "treasury watcher",
  url: "https://example.com/hooks/treasury",
  active: true,
  created_at: "2026-05-04T10:00:00.000Z",
  updated_at: "2026-05-04T10:00:00.000Z",
  chain_ids: [1, 8453],
  type: "activities",
  activity_type: "swap",
};

/** A `positions` webhook: its conditions and the position filters only it may have. */
const { activity_type: _activities, ...common } = webhook;
const positionsWebhook = {
  ...common,
  id: "0197e2c4-5a6b-7c8d-9e0f-1a2b3c4d5e6f",
  name: "lending risk",
  type: "positions",
  chain_ids: [8453],
  conditions: { health_factor_below: 1.1, liquidated: true, value_change_pct: 10 },
  position_types: ["Tokenized", "LendingV3"],
  protocols: ["AaveV3", "CompoundV3"],
};

const balances = {
  wallet_address: WALLET,
  balances: [
    {
      chain: "ethereum",
      chain_id: 1,
      address: "native",
      amount: "1500000000000000000",
      symbol: "ETH",
      name: "Ether",
      decimals: 18,
      price_usd: 3120.5,
      value_usd: 4680.75,
    },
    {
      chain: "ethereum",
      chain_id: 1,
      address: USDC,
      amount: "2500000000",
      symbol: "USDC",
      name: "USD Coin",
      decimals: 6,
      price_usd: 1,
      value_usd: 2500,
      pool_size: 18250000,
      low_liquidity: false,
    },
  ],
  request_time: "2026-05-04T10:00:00.000Z",
  response_time: "2026-05-04T10:00:00.041Z",
};

const pairTokens = {
  token0: USDC,
  token0_name: "USD Coin",
  token0_symbol: "USDC",
  token0_decimals: 6,
  token1: WETH,
  token1_name: "Wrapped Ether",
  token1_symbol: "WETH",
  token1_decimals: 18,
};

const positions = {
  wallet_address: WALLET,
  positions: [
    {
      type: "Nft",
      chain_id: 1,
      usd_value: 6241,
      logo: null,
      protocol: "UniswapV3",
      pool: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640",
      ...pairTokens,
      positions: [
        {
          tick_lower: 193_380,
          tick_upper: 199_380,
          token_id: "0x1a2b",
          token0_price: 1,
          token0_holdings: 3100,
          token0_rewards: 12.4,
          token1_price: 3120.5,
          token1_holdings: 1.0,
          token1_rewards: 0.004,
          in_range: true,
          liquidity: "2381924012345",
        },
      ],
      fee: 500,
      tick_current: 196_210,
    },
    {
      type: "Tokenized",
      chain_id: 1,
      usd_value: -1000,
      logo: `${BASE_URL}/beta/token/logo/1/${USDC}`,
      token_type: "VariableDebtV3",
      token: "0x72e95b8931767c79ba4eee721354d6e99a61d004",
      token_name: "Aave Ethereum Variable Debt USDC",
      token_symbol: "variableDebtEthUSDC",
      calculated_balance: 1000,
      price_in_usd: 1,
      underlying_token: USDC,
      lending_pool: "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2",
      health_factor: 2.41,
      borrow_apy: 0.052,
    },
  ],
  aggregations: { total_usd_value: 5241, total_by_chain: { "1": 5241 } },
};

const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30"/></svg>';

export const RESPONSE_EXAMPLES: Readonly<Record<string, unknown>> = {
  getBalances: balances,
  getTokenBalance: { ...balances, balances: [balances.balances[1]] },
  getDefiPositions: positions,
  createWebhook: { ...webhook, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  listWebhooks: { webhooks: [webhook, positionsWebhook], next_offset: "2" },
  getWebhook: webhook,
  updateWebhook: { ...webhook, active: false, updated_at: "2026-05-04T11:30:00.000Z" },
  deleteWebhook: {},
  getWebhookAddresses: { addresses: [WALLET, "0x28c6c06298d514db089934071355e5743bf21d60"] },
  replaceWebhookAddresses: {},
  updateWebhookAddresses: {},
  rotateWebhookSecret: { ...webhook, secret: "whsec_2nV7bqZc4fXkR1tLw9yHs3JdP6aGmE0u" },
  getSupportedChains: {
    chains: [
      {
        name: "ethereum",
        chain_id: 1,
        tags: ["default", "mainnet"],
        balances: { supported: true },
        defi_positions: { supported: true },
        subscriptions: { supported: true },
        indexed_from_block: 0,
        historical_prices: { state_from_block: 0 },
        internal_transfers: { supported: true },
      },
    ],
  },
  getTokenLogo: LOGO,
  getNativeLogo: LOGO,
  getAccount: {
    team_id: "team_2f1e3d4c5b6a7988",
    team_name: "acme",
    key_id: "key_0123456789abcdef",
    rate_limit: { requests_per_second: 100, burst: 200 },
    monthly_cu_quota: 1_000_000,
    cu_used_this_month: 48_210,
  },
  getHealth: {
    status: "ok",
    roles: { gateway: 1, api: 2, ingest: 1 },
    chains: [
      {
        chain_id: 1,
        name: "ethereum",
        ok: true,
        ready: true,
        head_block: 21_000_000,
        ingest_mode: "live",
        processed_block: 21_000_000,
        indexed_block: 21_000_000,
        lag: 0,
        events_per_second: 42.5,
        traces: "off",
        history_skipped: null,
        node: {
          state_from_block: 0,
          logs_from_block: 0,
          traces: true,
          endpoints: [
            {
              url: "http://reth.internal:8545",
              state: "ok",
              head: 21_000_000,
              lag: 0,
              latency_ms: 4,
              requests: 182_004,
              errors: 3,
              last_error: null,
              rate_limit_rps: null,
              max_batch: 40,
              state_from_block: 20_989_936,
              logs_from_block: 20_989_936,
              block_receipts: true,
              traces: false,
              probed_at: "2026-11-28T12:00:00.000Z",
            },
            {
              url: "https://eth-mainnet.g.alchemy.com/v2/***",
              state: "ok",
              head: 21_000_000,
              lag: 0,
              latency_ms: 61,
              requests: 95,
              errors: 0,
              last_error: null,
              rate_limit_rps: 25,
              max_batch: 40,
              state_from_block: 0,
              logs_from_block: 0,
              block_receipts: true,
              traces: true,
              probed_at: "2026-11-28T12:00:00.000Z",
            },
          ],
        },
      },
    ],
  },
};

/** An error body per status, from the service's own error classes where it has them. */
export const ERROR_EXAMPLES: Readonly<Record<string, ErrorBody>> = {
  "400": errorBody(
    new InvalidRequest({
      code: "INVALID_CHAIN_IDS",
      message:
        'chain_ids: "999" is not a chain id or tag served here; served: 1, 8453, 10, default, mainnet.',
    }),
  ),
  "401": errorBody(new Unauthenticated({ reason: "MissingKey" })),
  "402": errorBody(new QuotaExceeded({ quota: 1_000_000, used: 1_000_002 })),
  "404": errorBody(
    new NotFound({
      code: "WEBHOOK_NOT_FOUND",
      message: "No webhook with id 6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b exists for this team.",
    }),
  ),
  "413": { error: "The request body is larger than 1048576 bytes.", code: "PAYLOAD_TOO_LARGE" },
  "415": {
    error: 'Request bodies must be JSON with Content-Type: application/json (got "text/plain").',
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  "429": errorBody(new RateLimited({ retryAfterSeconds: 1 })),
  "503": { error: "No worker is serving this endpoint right now; retry shortly.", code: "NO_RESPONDER" },
  "504": { error: "No worker answered within 10000 ms.", code: "UPSTREAM_TIMEOUT" },
};
