import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { PROCESS_DEADLINE_MS, REPO_ROOT } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";
import { createBody, startWebhookEnv, WEBHOOKS, type WebhookEnv } from "../../support/webhookEnv.js";

/** tmux comes from the OS (.ci/run installs it); without it this end-to-end test cannot run. */
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** A tmux server of this test's own, so nothing touches the user's sessions. */
const SOCKET = `svc-tui-test-${process.pid}`;
const tmux = (...args: ReadonlyArray<string>) =>
  execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
/** What a tmux session shows, waiting on it, and typing into it. */
const pane = (session: string) => {
  const screen = () => tmux("capture-pane", "-p", "-t", session);
  return {
    screen,
    until: (pattern: RegExp, what: string, timeoutMs = 30_000) =>
      eventually(async () => pattern.test(screen()), timeoutMs, `${what}; screen:\n${screen()}`),
    keys: async (...sequence: ReadonlyArray<string>) => {
      for (const key of sequence) {
        tmux("send-keys", "-t", session, key);
        await new Promise((r) => setTimeout(r, 150));
      }
    },
  };
};
const { until, keys } = pane("tui");

let env: WebhookEnv;

/** The TUI entry point (what npm run tui starts) on an 80x24 terminal, as the admin NATS user. */
const startTui = (session: string, natsUrl: string, adminPassword: string) => {
  // Its own data directory: the operator team's key file goes there, not into the repository's data/.
  const dataDir = mkdtempSync(join(tmpdir(), "svc-tui-data-"));
  tmux(
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    "80",
    "-y",
    "24",
    "-e",
    `NATS_URL=${natsUrl}`,
    "-e",
    "NATS_USER=admin",
    "-e",
    `NATS_PASSWORD=${adminPassword}`,
    "-e",
    `DATA_DIR=${dataDir}`,
    // A person's terminal, even when the test itself runs in CI: Ink only draws frames outside CI.
    "-e",
    "CI=false",
    "-e",
    "CONTINUOUS_INTEGRATION=false",
    "-c",
    REPO_ROOT,
    `${process.execPath} --import tsx tui/index.tsx`,
  );
  return dataDir;
};

beforeAll(async () => {
  if (hasTmux) env = await startWebhookEnv();
}, 60_000);

afterAll(async () => {
  if (hasTmux) spawnSync("tmux", ["-L", SOCKET, "kill-server"]);
  await env?.stop();
});

describe.skipIf(!hasTmux)("operator TUI in a terminal", { timeout: PROCESS_DEADLINE_MS + 120_000 }, () => {
  it("end-to-end: the TUI entry point (what npm run tui starts) in tmux pauses a webhook, and the API shows it paused", async () => {
    const call = await env.as("tmux-team");
    const created = await call("POST", WEBHOOKS, createBody({ name: "tmux target" }));
    expect(created.status).toBe(200);
    const id = (created.json as { id: string }).id;

    // Given the real TUI on an 80x24 terminal, as the admin NATS user
    startTui("tui", env.nats.url, env.nats.credentials.admin);
    // The first screen waits for the TUI process to start (tsx compiles it first).
    await until(/tmux-team\s+tmux target\s+txs\s+yes\s+1/, "the webhook listed", PROCESS_DEADLINE_MS);

    // When the operator searches for it, opens it, presses a and confirms with y
    await keys("/");
    await until(/search name, id, url or team:/, "the search prompt");
    await keys("tmux target", "Enter");
    await until(/1-1 of 1 matching/, "the one match");
    await keys("Enter");
    await until(/Webhook tmux target/, "the detail screen");
    await keys("a");
    await until(/Pause "tmux target"\?/, "the question");
    await keys("y");

    // Then the screen and the HTTP API both say it is paused
    await until(/active\s+no \(paused\)/, "the paused state on screen");
    const res = await call("GET", `${WEBHOOKS}/${id}`);
    expect(res.json).toMatchObject({ id, active: false });

    // And q quits
    await keys("Escape");
    await until(/tmux-team\s+tmux target\s+txs\s+no\s+1/, "back on the list, paused");
    await keys("q");
    await eventually(
      async () => spawnSync("tmux", ["-L", SOCKET, "has-session", "-t", "tui"]).status !== 0,
      30_000,
      "the TUI to exit",
    );
  });
});

describe.skipIf(!hasTmux)(
  "operator TUI in a terminal, on the devnet",
  { timeout: PROCESS_DEADLINE_MS + 180_000 },
  () => {
    let devnet: DevnetService;
    const { screen: screenOf, until: untilOn, keys: keysOn } = pane("wallet");

    beforeAll(async () => {
      devnet = await startDevnetService();
    }, 300_000);

    afterAll(async () => {
      await devnet?.stop();
    });

    it("end-to-end: the Wallet screen shows a wallet's balances and positions at 80x24, Usage its positions CU, and Chains the endpoints", async () => {
      const lp = devnet.devnet.manifest.chains.find((chain) => chain.chain_id === 1)!.wallets.v3_lp!;
      const dataDir = startTui("wallet", devnet.nats.url, devnet.nats.credentials.admin);
      await untilOn(/Webhooks/, "the TUI started", PROCESS_DEADLINE_MS);

      // When the operator opens Wallet and types an address
      await keysOn("5");
      await untilOn(/press \/ to look up an address/, "the Wallet screen");
      await keysOn("/");
      await untilOn(/wallet address:/, "the prompt");
      await keysOn(lp, "Enter");

      // Then balances and the V3 positions appear, within the 80 columns
      await untilOn(/CU to team operator/, "the lookup's summary", 60_000);
      const shown = screenOf();
      expect(shown).toMatch(/ethereum\s+\S+\s+[\d.]+[kMG]?\s+[\d.]+\s+[\d.]+/);
      expect(shown).toMatch(/Nft\s+\S+\s+\S+\/\S+\s+[\d.]+/);
      expect(shown).toMatch(/\/ address/);
      for (const line of shown.split("\n")) expect(line.length).toBeLessThanOrEqual(80);

      // And Usage lists the operator team's positions CU like any endpoint's
      await keysOn("2");
      await untilOn(/Endpoints of operator/, "the operator team's usage");
      // (usage records reach the aggregates a moment after the answers)
      await untilOn(/getDefiPositions\s+[1-9]\d*\s+1\s+0/, "the positions endpoint's CU");
      // The operator team's key is kept for the next run, readable by its owner only.
      expect(statSync(join(dataDir, "operator-api-key")).mode & 0o777).toBe(0o600);

      // And Chains shows the first chain's endpoint, answering and probed, within the 80 columns
      await keysOn("3");
      await untilOn(/^http:\/\/\S+\s+ok\s+\d+\s+0\s+\d+ms\s+\S+\s+\d+\s+\d+\s*$/m, "the endpoint's health");
      await untilOn(
        /^http:\/\/\S+\s+(archive|\d+)\s+\d+\s+(yes|no)\s+(yes|no)\s+\d+[smh]\s*$/m,
        "what it can answer",
      );
      const chains = screenOf();
      expect(chains).toMatch(/Endpoints of ethereum/);
      for (const line of chains.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
      await keysOn("q");
      await eventually(
        async () => spawnSync("tmux", ["-L", SOCKET, "has-session", "-t", "wallet"]).status !== 0,
        30_000,
        "the TUI to exit",
      );
    });
  },
);
