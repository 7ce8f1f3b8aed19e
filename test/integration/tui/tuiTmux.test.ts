import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_DEADLINE_MS, REPO_ROOT } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";
import { createBody, startWebhookEnv, WEBHOOKS, type WebhookEnv } from "../../support/webhookEnv.js";

/** tmux comes from the OS (.ci/run installs it); without it this end-to-end test cannot run. */
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** A tmux server of this test's own, so nothing touches the user's sessions. */
const SOCKET = `svc-tui-test-${process.pid}`;
const tmux = (...args: ReadonlyArray<string>) =>
  execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", "tui");
const until = (pattern: RegExp, what: string, timeoutMs = 30_000) =>
  eventually(async () => pattern.test(screen()), timeoutMs, `${what}; screen:\n${screen()}`);
const keys = async (...sequence: ReadonlyArray<string>) => {
  for (const key of sequence) {
    tmux("send-keys", "-t", "tui", key);
    await new Promise((r) => setTimeout(r, 150));
  }
};

let env: WebhookEnv;

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
    tmux(
      "new-session",
      "-d",
      "-s",
      "tui",
      "-x",
      "80",
      "-y",
      "24",
      "-e",
      `NATS_URL=${env.nats.url}`,
      "-e",
      "NATS_USER=admin",
      "-e",
      `NATS_PASSWORD=${env.nats.credentials.admin}`,
      // A person's terminal, even when the test itself runs in CI: Ink only draws frames outside CI.
      "-e",
      "CI=false",
      "-e",
      "CONTINUOUS_INTEGRATION=false",
      "-c",
      REPO_ROOT,
      `${process.execPath} --import tsx tui/index.tsx`,
    );
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
