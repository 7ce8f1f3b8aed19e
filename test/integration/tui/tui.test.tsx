import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { render } from "ink-testing-library";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { makeAdminClient } from "../../../tui/AdminClient.js";
import { App } from "../../../tui/App.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import {
  eventually,
  type RunningService,
  startService,
  writeChainsFile,
} from "../../support/serviceHarness.js";
import { addressOf, type Caller, callerFor, createBody, WEBHOOKS } from "../../support/webhookEnv.js";

let nats: TestNats;
let anvil: AnvilInstance;
let anvil10: AnvilInstance;
let service: RunningService;
let admin: NatsConnection;
let chainsConfig: string;

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  // A node of its own: an endpoint that reports another chain id is never used, and its chain never live.
  anvil10 = await startAnvil({ chainId: 10 });
  // Chain 10 serves no balances, so a token-balance call on it costs 1 CU without reading a chain.
  chainsConfig = await writeChainsFile(await mkdtemp(join(tmpdir(), "svc-tui-")), [
    { chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl },
    { chainId: 10, name: "optimism", rpcUrl: anvil10.rpcUrl, extra: { supports: { balances: false } } },
  ]);
  service = await startService(nats, { chainsConfig, settings: { webhookMaxPerTeam: 500 } });
  admin = await nats.connectAs("admin");
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await anvil?.stop();
  await anvil10?.stop();
  await nats?.stop();
});

/** A caller with a new key of `team`. */
const as = async (team: string): Promise<Caller> => {
  const buckets = {
    keys: await Effect.runPromise(openBucket(admin, "keys")),
    teams: await Effect.runPromise(openBucket(admin, "teams")),
  };
  return callerFor(service.baseUrl, (await Effect.runPromise(createKey(buckets, team))).key);
};

/** The App on an admin connection, with helpers to type and to wait for a frame. */
const openTui = async () => {
  const app = render(<App client={makeAdminClient(admin)} />);
  const frame = () => app.lastFrame() ?? "";
  // Generous: a frame waits on admin calls over NATS, which a busy machine can make take seconds.
  const until = (check: RegExp | ((f: string) => boolean), what: string, timeoutMs = 30_000) =>
    eventually(
      async () => (typeof check === "function" ? check(frame()) : check.test(frame())),
      timeoutMs,
      `${what}; last frame:\n${frame()}`,
    );
  const press = async (...keys: ReadonlyArray<string>) => {
    for (const key of keys) {
      app.stdin.write(key);
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  return { app, frame, until, press };
};

const create = async (call: Caller, overrides: Record<string, unknown>) => {
  const res = await call("POST", WEBHOOKS, createBody(overrides));
  expect(res.status, res.text).toBe(200);
  return res.json as { id: string };
};

const DOWN = "\u001B[B";
const PAGE_DOWN = "\u001B[6~";
const ESC = "\u001B";
const ENTER = "\r";

describe("operator TUI", () => {
  it("default: Webhooks lists every team's webhooks; / searches, f filters, PgDn windows through 120", async () => {
    const alpha = await as("tui-alpha");
    const beta = await as("tui-beta");
    await create(alpha, { name: "alpha payments", addresses: [addressOf(1), addressOf(2), addressOf(3)] });
    const paused = await create(beta, { name: "beta sleeper", type: "activities" });
    expect((await beta("PATCH", `${WEBHOOKS}/${paused.id}`, { active: false })).status).toBe(200);
    const bulk = await as("tui-bulk");
    // Four at a time: this test is about the screen, and 118 requests at once on a busy machine
    // queue behind each other past the gateway's timeout (the bursts have their own tests).
    const names = Array.from({ length: 118 }, (_, i) => `bulk ${String(i).padStart(3, "0")}`);
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (const name of names.filter((_, i) => i % 4 === lane)) await create(bulk, { name });
      }),
    );

    const { app, frame, until, press } = await openTui();
    // Sorted by team: tui-alpha's row comes first, with its type, state and address count.
    // Delivery columns: none delivered, failed, retrying or dead-lettered yet, no last attempt.
    await until(/tui-alpha\s+alpha payments\s+txs\s+yes\s+3\s+0\s+0\s+0\s+0\s+-/, "alpha row");
    await until(/1-17 of 120 matching · 120 in all/, "the first window of 17 rows");

    await press(PAGE_DOWN);
    await until(/18-34 of 120 matching/, "the second window");
    expect(frame()).toMatch(/tui-bulk\s+bulk 0(1[5-9]|2\d)/);

    await press("/");
    await until(/search name, id, url or team:/, "the search prompt");
    await press("sleep", ENTER);
    await until(/1-1 of 1 matching/, "one match");
    expect(frame()).toMatch(/tui-beta\s+beta sleeper\s+acts\s+no\s+1/);

    await press(ESC, "f");
    await until(/active · sort team/, "the active filter");
    await until((f) => /of 119 matching/.test(f) && !f.includes("beta sleeper"), "only active webhooks");
    app.unmount();
  });

  it("default: a positions webhook shows its type in the list and its conditions in the detail", async () => {
    const call = await as("tui-positions");
    await create(call, {
      name: "risk hook",
      type: "positions",
      addresses: [addressOf(2000)],
      chain_ids: [1],
      conditions: { health_factor_below: 1.25, liquidated: true },
    });
    const { app, until, press } = await openTui();
    await press("/");
    await until(/search name/, "the search prompt");
    await press("risk hook", ENTER);
    await until((f) => /1-1 of 1 matching/.test(f) && /risk hook\s+pos\s/.test(f), "the webhook as pos");
    await press(ENTER);
    await until(/filters\s+chains 1 · health factor below 1.25 · liquidations/, "the conditions");
    app.unmount();
  });

  it("default: a positions webhook's value change and position types show in the detail", async () => {
    const call = await as("tui-values");
    await create(call, {
      name: "value hook",
      type: "positions",
      addresses: [addressOf(2001)],
      chain_ids: [1],
      conditions: { value_change_pct: 7.5 },
      position_types: ["LendingV3", "Tokenized"],
    });
    const { app, until, press } = await openTui();
    await press("/");
    await until(/search name/, "the search prompt");
    await press("value hook", ENTER);
    await until((f) => /1-1 of 1 matching/.test(f) && /value hook\s+pos\s/.test(f), "the webhook as pos");
    await press(ENTER);
    await until(
      /filters\s+chains 1 · value change 7.5% · types Tokenized,LendingV3/,
      "the condition and the types",
    );
    app.unmount();
  });

  it("default: Webhook detail shows filters and paged addresses; pausing and rotating ask first and reach the API", async () => {
    const call = await as("tui-detail");
    const addresses = Array.from({ length: 30 }, (_, i) => addressOf(1000 + i));
    const hook = await create(call, {
      name: "detail hook",
      addresses,
      chain_ids: [1],
      transaction_type: "sender",
    });

    const { app, frame, until, press } = await openTui();
    await press("/");
    await until(/search name/, "the search prompt");
    await press("detail hook", ENTER);
    await until(/1-1 of 1 matching/, "the webhook alone");
    await press(ENTER);
    await until(/Webhook detail hook/, "the detail screen");
    // 100 columns hold two addresses a line, 5 lines a page.
    await until(/Addresses 1-10 of 30/, "the first address page");
    expect(frame()).toMatch(/deliveries\s+0 delivered · 0 failed · 0 retrying · 0 dead · last -/);
    expect(frame()).toMatch(/filters\s+chains 1 · direction sender/);
    expect(frame()).toContain(`${addressOf(1000)}  ${addressOf(1001)}`);
    expect(frame()).not.toContain(addressOf(1010));
    await press("]");
    await until(/Addresses 11-20 of 30/, "the second address page");
    expect(frame()).toContain(addressOf(1010));
    expect(frame()).not.toContain(addressOf(1009));
    await press("d");
    await until(/nothing to redeliver: no dead-lettered deliveries/, "no redelivery without dead letters");

    // Pausing waits for y; n leaves the webhook as it was.
    await press("a");
    await until(/Pause "detail hook"\? Deliveries stop\. y yes n no/, "the pause question");
    await press("n");
    await until(/updated \d\d:\d\d:\d\d UTC/, "the question gone");
    expect((await call("GET", `${WEBHOOKS}/${hook.id}`)).json.active).toBe(true);
    await press("a");
    await until(/Pause "detail hook"\?/, "the pause question again");
    await press("y");
    await until(/active\s+no \(paused\)/, "the paused state");
    expect((await call("GET", `${WEBHOOKS}/${hook.id}`)).json.active).toBe(false);

    await press("S");
    await until(/Rotate the signing secret\?/, "the rotate question");
    await press("y");
    await until(/New signing secret \(shown once/, "the new secret");
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(frame())?.[0];
    expect(secret).toBeDefined();
    await press("x");
    await until((f) => !f.includes("whsec_"), "the secret hidden");
    await press(ESC);
    await until(/tui-detail\s+detail hook\s+txs\s+no\s+30/, "back on the list, paused");
    app.unmount();
  });

  it("default: Usage shows each team's CU and requests, by key with g, with endpoints and an hourly chart", async () => {
    const call = await as("tui-spender");
    for (let i = 0; i < 3; i++) {
      const res = await call("GET", `/v1/evm/balances/${addressOf(5)}/token/native?chain_ids=10`);
      expect(res.status, res.text).toBe(200);
    }
    const { app, frame, until, press } = await openTui();
    await press("2");
    await until(/tui-spender\s+3\s+3\s+3\s+3\s+0/, "the spender's CU this hour, today, in 30 days");
    await until(/Endpoints of tui-spender/, "the spender selected (most CU first)");
    expect(frame()).toMatch(/getTokenBalance\s+3\s+3\s+0/);
    expect(frame()).toMatch(/CU per hour, last 24 h, tui-spender peak 3\n[·]{46}██/);
    await press("g");
    await until(/Usage by key/, "usage by key");
    expect(frame()).toMatch(/key_[0-9a-f]{16}\s+tui-spender\s+3\s+3\s+3\s+3\s+0/);
    app.unmount();
  });

  it("default: Chains shows each follower live with its head, indexed block and lag, and the selected chain's endpoints", async () => {
    const { app, frame, until, press } = await openTui();
    await press("3");
    await until(/all 2 live, none lagging/, "every chain live");
    await until(/^\s+1 ethereum\s+live\s+\d+\s+\d+\s+0\s/m, "chain 1's row");
    await until(/^\s*10 optimism\s+live/m, "chain 10's row");
    // The ingest process's view of anvil: answering, at the head, unlimited, and probed as an archive node.
    await until(/Endpoints of ethereum/, "the first chain's endpoints");
    await until(
      new RegExp(
        `^${anvil.rpcUrl.replaceAll(".", "\\.")}\\s+ok\\s+\\d+\\s+0\\s+\\d+ms\\s+-\\s+\\d+\\s+\\d+$`,
        "m",
      ),
      "the endpoint's URL, state, head, lag, latency, limit, requests and errors",
    );
    await until(
      new RegExp(
        `^${anvil.rpcUrl.replaceAll(".", "\\.")}\\s+archive\\s+0\\s+(yes|no)\\s+(yes|no)\\s+\\d+[smh]$`,
        "m",
      ),
      "what the endpoint was probed to answer",
    );
    expect(frame()).toMatch(/ENDPOINT\s+STATE\s+HEAD\s+LAG\s+LATENCY\s+LIMIT\s+REQ\s+ERR/);
    expect(frame()).toMatch(/ENDPOINT\s+STATE FROM\s+LOGS FROM\s+TRACES\s+RECEIPTS\s+PROBED/);
    await press(DOWN);
    await until(/Endpoints of optimism/, "chain 10 selected");
    app.unmount();
  });

  it("default: Keys creates a key shown once that works, and revokes it after a confirmation", async () => {
    const { app, frame, until, press } = await openTui();
    await press("4");
    await until(/API keys/, "the keys screen");
    await press("c");
    await until(/team of the new key:/, "the team prompt");
    await press("tui-keys", ENTER);
    await until(/New API key \(shown once/, "the new key");
    const key = /svc_[A-Za-z0-9_-]{43}/.exec(frame())?.[0] ?? "";
    const account = await fetch(`${service.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } });
    expect(account.status).toBe(200);
    await press("x");
    await until((f) => !f.includes(key) && /created key_[0-9a-f]{16} for tui-keys/.test(f), "the key hidden");

    const keyId = /created (key_[0-9a-f]{16})/.exec(frame())![1]!;
    // The note comes before the refreshed list: wait for the key's row, or the count below is short.
    await until(new RegExp(`^${keyId} `, "m"), "the new key's row");
    // The selection is drawn in inverse video, which this renderer leaves out: count the rows above instead.
    const rows = frame()
      .split("\n")
      .filter((line) => /^key_[0-9a-f]{16} /.test(line));
    for (const row of rows) {
      if (row.startsWith(keyId)) break;
      await press(DOWN);
    }
    await press("r");
    await until(new RegExp(`Revoke ${keyId}\\?`), "the revoke question");
    await press("y");
    await until(new RegExp(`${keyId}\\s+tui-keys\\s+svc_\\S+\\s+revoked`), "the revoked key");
    const after = await fetch(`${service.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } });
    expect(after.status).toBe(401);
    app.unmount();
  });

  it("behavior: a key pressed as soon as a screen is drawn reaches it (c on the keys screen asks for a team)", async () => {
    const { app, until, press } = await openTui();
    await press("2");
    await until(/CU per hour/, "the usage screen, so the TUI reads keys");
    // The moment the keys screen is first written out, press c: before anything else runs, as a
    // key already waiting in the terminal is read.
    const write = app.stdout.write;
    let pressed = false;
    app.stdout.write = (frame: string) => {
      write(frame);
      if (!pressed && frame.includes("API keys")) {
        pressed = true;
        queueMicrotask(() => app.stdin.write("c"));
      }
    };
    await press("4");
    await until(/team of the new key:/, "the team prompt");
    app.unmount();
  });

  it("failure: with no service on NATS every screen says so, and recovers once the service answers", async () => {
    const nats = await startTestNats();
    const app = render(<App client={makeAdminClient(await nats.connectAs("admin"))} />);
    const frame = () => app.lastFrame() ?? "";
    try {
      await eventually(
        async () => /cannot reach the service, retrying: No answer on admin\.webhooks\.list/.test(frame()),
        15_000,
        "the error line",
      );
      const service = await startService(nats, { chainsConfig, roles: ["api"] });
      try {
        await eventually(
          async () => /\(no webhooks\)/.test(frame()) && /updated \d\d:/.test(frame()),
          30_000,
          "recovery",
        );
      } finally {
        await service.stop();
      }
    } finally {
      app.unmount();
      await nats.stop();
    }
  });
});
