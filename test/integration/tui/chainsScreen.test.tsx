import { Box } from "ink";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import type { RpcEndpointStatus } from "../../../src/contracts/RpcStatus.js";
import type { AdminClient, ChainRows } from "../../../tui/AdminClient.js";
import { KeysRoot } from "../../../tui/hooks/use-keys.js";
import { ChainsScreen } from "../../../tui/screens/ChainsScreen.js";
import { eventually } from "../../support/serviceHarness.js";

const DOWN = "\u001B[B";
const secondsAgo = (s: number) => new Date(Date.now() - s * 1_000).toISOString();

const endpoint = (fields: Partial<RpcEndpointStatus> & Pick<RpcEndpointStatus, "url" | "state">) => ({
  head: null,
  lag: null,
  latency_ms: null,
  requests: 0,
  errors: 0,
  last_error: null,
  rate_limit_rps: null,
  max_batch: 40,
  state_from_block: null,
  logs_from_block: null,
  block_receipts: null,
  traces: null,
  probed_at: null,
  ...fields,
});

const follower = (chainId: number, name: string) => ({
  chain_id: chainId,
  name,
  head: 21_000_000,
  processed: 21_000_000,
  lag: 0,
  mode: "live" as const,
  events_per_second: 12,
  blocks_published: 100,
  reorgs: 0,
  rpc_errors: 0,
  last_error: null,
  updated_at: secondsAgo(1),
});

/**
 * Ethereum's follower reports three endpoints (an archive node with traces and a rate limit, a
 * pruned node behind the others, one that cannot be reached), reads traces and skipped history
 * no endpoint keeps; Base's comes from an ingest process that reports no endpoints; Optimism's
 * index records only the wallets discovery met (`index_wallets: discovered`).
 */
const CHAINS: ChainRows = [
  {
    ...follower(1, "ethereum"),
    traces: "on",
    history_skipped: { from: 0, to: 16_999_999 },
    blocks_skipped: { from: 21_000_001, to: 21_000_400 },
    blocks_untraced: { from: 21_000_401, to: 21_000_900 },
    indexed_from: 17_000_000,
    discovery: { queued: 3, sweeping: 1, scanning: 2, scan_queued: 5, complete: 40, failed: 0 },
    registry_backfill: {
      from: 10_000_000,
      to: 16_999_999,
      next: 13_500_000,
      fraction: 0.5,
      logs: 81_234,
      calls: 3_500,
      done: false,
    },
    node: {
      state_from_block: 0,
      logs_from_block: 0,
      traces: true,
      endpoints: [
        endpoint({
          url: "https://eth-mainnet.g.alchemy.com/v2/***",
          state: "ok",
          head: 21_000_000,
          lag: 0,
          latency_ms: 44,
          requests: 1_234,
          errors: 3,
          rate_limit_rps: 25,
          state_from_block: 0,
          logs_from_block: 0,
          block_receipts: true,
          traces: true,
          probed_at: secondsAgo(30),
        }),
        endpoint({
          url: "https://rpc.pruned.example",
          state: "lagging",
          head: 20_999_980,
          lag: 20,
          latency_ms: 120,
          requests: 80,
          state_from_block: 20_990_000,
          logs_from_block: 17_000_000,
          block_receipts: false,
          traces: false,
          probed_at: secondsAgo(30),
        }),
        endpoint({
          url: "http://10.0.0.9:8545",
          state: "failing",
          requests: 7,
          errors: 7,
          last_error: "connection refused (ECONNREFUSED)",
        }),
      ],
    },
  },
  follower(8453, "base"),
  {
    ...follower(10, "optimism"),
    indexed_from: 130_000_000,
    indexed_wallets: 42,
    discovery: { sweeping: 0, scanning: 1, complete: 41, failed: 0 },
  },
];

const notOnThisScreen = () => Promise.reject(new Error("not read by the Chains screen"));

const clientOf = (chains: ChainRows): AdminClient => ({
  listWebhooks: notOnThisScreen,
  getWebhook: notOnThisScreen,
  setWebhookActive: notOnThisScreen,
  rotateWebhookSecret: notOnThisScreen,
  deliveries: notOnThisScreen,
  redeliver: notOnThisScreen,
  usage: notOnThisScreen,
  chains: async () => chains,
  listKeys: notOnThisScreen,
  listTeams: notOnThisScreen,
  createKey: notOnThisScreen,
  revokeKey: notOnThisScreen,
  lookupWallet: notOnThisScreen,
  watch: () => () => {},
});

/** The Chains screen alone, `width` by `height` as App gives it. */
const openChains = (chains: ChainRows, width: number, height: number) => {
  const app = render(
    <KeysRoot>
      <Box width={width} flexDirection="column">
        <ChainsScreen client={clientOf(chains)} width={width} height={height} onLock={() => {}} />
      </Box>
    </KeysRoot>,
  );
  const frame = () => app.lastFrame() ?? "";
  const until = (pattern: RegExp, what: string) =>
    eventually(async () => pattern.test(frame()), 10_000, `${what}; last frame:\n${frame()}`);
  const press = async (key: string) => {
    app.stdin.write(key);
    await new Promise((r) => setTimeout(r, 30));
  };
  return { app, frame, until, press };
};

describe("TUI Chains screen: RPC endpoints", () => {
  it("default: the selected chain's endpoints show their URL, state, head, lag, latency, limit, errors and what each can answer", async () => {
    const { app, frame, until } = openChains(CHAINS, 120, 30);
    await until(/Endpoints of ethereum/, "the first chain's endpoints");
    const text = frame();
    expect(text).toMatch(/ENDPOINT\s+STATE\s+HEAD\s+LAG\s+LATENCY\s+LIMIT\s+REQ\s+ERR/);
    expect(text).toMatch(
      /https:\/\/eth-mainnet\.g\.alchemy\.com\/v2\/\*\*\*\s+ok\s+21000000\s+0\s+44ms\s+25\/s\s+1234\s+3\n/,
    );
    expect(text).toMatch(/https:\/\/rpc\.pruned\.example\s+lagging\s+20999980\s+20\s+120ms\s+-\s+80\s+0\n/);
    expect(text).toMatch(/http:\/\/10\.0\.0\.9:8545\s+failing\s+-\s+-\s+-\s+-\s+7\s+7\n/);

    expect(text).toMatch(/ENDPOINT\s+STATE FROM\s+LOGS FROM\s+TRACES\s+RECEIPTS\s+PROBED/);
    expect(text).toMatch(
      /https:\/\/eth-mainnet\.g\.alchemy\.com\/v2\/\*\*\*\s+archive\s+0\s+yes\s+yes\s+3\ds\n/,
    );
    expect(text).toMatch(/https:\/\/rpc\.pruned\.example\s+20990000\s+17000000\s+no\s+no\s+3\ds\n/);
    expect(text).toMatch(/http:\/\/10\.0\.0\.9:8545\s+-\s+-\s+-\s+-\s+-\n/);
    // What the chain can answer: what some endpoint serves.
    expect(text).toMatch(/\(any endpoint\)\s+archive\s+0\s+yes\s*\n/);

    expect(text).toMatch(/Endpoints of ethereum · traces on\n/);
    expect(text).toMatch(/^history 0-16999999 not read: no endpoint keeps its logs$/m);
    expect(text).toMatch(/^blocks 21000001-21000400 not read: pruned before ingest got to them$/m);
    expect(text).toMatch(/^blocks 21000401-21000900 read without internal transfers: their state was gone$/m);
    expect(text).toMatch(
      /^discovery \(index from 17000000\): 40 complete · 3 queued · 1 sweeping · 2 scanning history · 5 waiting to scan · 0 failed$/m,
    );
    expect(text).toMatch(/^registry backfill 50% \(block 13500000 of 10000000-16999999\)$/m);
    expect(text).toMatch(/^http:\/\/10\.0\.0\.9:8545: connection refused \(ECONNREFUSED\)$/m);
    app.unmount();
  });

  it("behavior: ↓ selects the next chain; a status without endpoints (an older ingest process) says so and shows no endpoint tables", async () => {
    const { app, frame, until, press } = openChains(CHAINS, 120, 30);
    await until(/Endpoints of ethereum/, "the first chain's endpoints");
    await press(DOWN);
    await until(/Endpoints of base · not reported by its ingest process/, "base selected");
    expect(frame()).not.toContain("discovery (index from");
    expect(frame()).not.toMatch(/ENDPOINT\s+STATE/);
    expect(frame()).not.toContain("traces");
    expect(frame()).toMatch(/^\s*8453 base\s+live\s+21000000\s+21000000\s+0\s/m);
    app.unmount();
  });

  it("behavior: a chain indexed for the wallets asked about says how many its index records", async () => {
    const { app, frame, until, press } = openChains(CHAINS, 120, 30);
    await until(/Endpoints of ethereum/, "the first chain's endpoints");
    expect(frame()).not.toContain("recording");
    await press(DOWN);
    await press(DOWN);
    await until(/Endpoints of optimism/, "optimism selected");
    expect(frame()).toMatch(
      /^discovery \(index from 130000000, recording 42 wallets\): 41 complete · 0 sweeping · 1 scanning history · 0 failed$/m,
    );
    app.unmount();
  });

  it("edge: at 80x22 every line fits, the chains and both endpoint tables are there, URLs cut rather than columns", async () => {
    const { app, frame, until } = openChains(CHAINS, 80, 22);
    await until(/Endpoints of ethereum/, "the first chain's endpoints");
    const lines = frame().split("\n");
    expect(lines.length).toBeLessThanOrEqual(22);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(frame()).toMatch(/^\s+1 ethereum\s+live/m);
    expect(frame()).toMatch(/^\s*8453 base\s+live/m);
    expect(frame()).toMatch(/ENDPOINT\s+STATE\s+HEAD\s+LAG\s+LATENCY\s+LIMIT\s+REQ\s+ERR\n/);
    expect(frame()).toMatch(
      /https:\/\/eth-mainnet\.g\.alchem\S*…\s+ok\s+21000000\s+0\s+44ms\s+25\/s\s+1234\s+3\n/,
    );
    expect(frame()).toMatch(/ENDPOINT\s+STATE FROM\s+LOGS FROM\s+TRACES\s+RECEIPTS\s+PROBED\n/);
    expect(frame()).toMatch(/https:\/\/rpc\.pruned\.example\s+20990000\s+17000000\s+no\s+no\s+3\ds\n/);
    app.unmount();
  });

  it("edge: an endpoint that serves another chain says so under the tables; one not answered yet shows dashes", async () => {
    const odd: ChainRows = [
      {
        ...follower(10, "optimism"),
        node: {
          state_from_block: null,
          logs_from_block: null,
          traces: null,
          endpoints: [
            endpoint({ url: "https://mainnet.optimism.example", state: "wrong_chain", head: 21_000_000 }),
            endpoint({ url: "https://new.optimism.example", state: "unknown" }),
          ],
        },
        traces: "unavailable",
      },
    ];
    const { app, frame, until } = openChains(odd, 100, 30);
    await until(/Endpoints of optimism/, "the endpoints");
    expect(frame()).toMatch(
      /https:\/\/mainnet\.optimism\.example\s+wrong_chain\s+21000000\s+-\s+-\s+-\s+0\s+0\n/,
    );
    expect(frame()).toMatch(/https:\/\/new\.optimism\.example\s+unknown\s+-\s+-\s+-\s+-\s+0\s+0\n/);
    expect(frame()).toMatch(/\(any endpoint\)\s+-\s+-\s+-\s*\n/);
    expect(frame()).toMatch(/^https:\/\/mainnet\.optimism\.example: serves another chain$/m);
    expect(frame()).toMatch(/Endpoints of optimism · traces configured, no endpoint serves them/);
    app.unmount();
  });

  it("edge: endpoints that do not fit the height are counted, not drawn over the status line", async () => {
    const many: ChainRows = [
      {
        ...CHAINS[0]!,
        node: {
          ...CHAINS[0]!.node!,
          endpoints: Array.from({ length: 12 }, (_, i) =>
            endpoint({ url: `http://node-${i}.example:8545`, state: "ok", head: 21_000_000, lag: 0 }),
          ),
        },
      },
    ];
    const { app, frame, until } = openChains(many, 80, 22);
    await until(/Endpoints of ethereum/, "the endpoints");
    expect(frame()).toMatch(/· \d of 12 shown/);
    expect(frame().split("\n").length).toBeLessThanOrEqual(22);
    expect(frame()).toMatch(/updated \d\d:\d\d:\d\d UTC/);
    app.unmount();
  });
});
