import type { NatsConnection } from "@nats-io/transport-node";
import { render } from "ink-testing-library";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeAdminClient } from "../../../tui/AdminClient.js";
import { App } from "../../../tui/App.js";
import { OPERATOR_TEAM } from "../../../tui/operatorKey.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";

let env: DevnetService;
let admin: NatsConnection;

beforeAll(async () => {
  env = await startDevnetService();
  admin = await env.nats.connectAs("admin");
}, 300_000);

afterAll(async () => {
  await admin?.close();
  await env?.stop();
});

const ENTER = "\r";

/** The App on an admin connection, with helpers to type and to wait for a frame. */
const openTui = () => {
  const client = makeAdminClient(admin);
  const app = render(<App client={client} />);
  const frame = () => app.lastFrame() ?? "";
  const until = (pattern: RegExp, what: string, timeoutMs = 60_000) =>
    eventually(async () => pattern.test(frame()), timeoutMs, `${what}; last frame:\n${frame()}`);
  const press = async (...keys: ReadonlyArray<string>) => {
    for (const key of keys) {
      app.stdin.write(key);
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  return { app, client, frame, until, press };
};

describe("operator TUI: Wallet screen", { timeout: 240_000 }, () => {
  it("default: an address shows its balances and positions on every chain, charged to the operator team, and Usage lists its positions CU", async () => {
    const lp = env.devnet.manifest.chains.find((chain) => chain.chain_id === 1)!.wallets.v3_lp!;
    const { app, frame, until, press } = openTui();
    await press("5");
    await until(/press \/ to look up an address/, "the Wallet screen");

    await press("/");
    await until(/wallet address:/, "the address prompt");
    await press("0x1234", ENTER);
    await until(/not an address: 0x followed by 40 hex digits/, "the refusal");

    await press("/", lp, ENTER);
    // Balances of several chains, and the V3 position NFTs of the LP wallet, with USD values.
    await until(/CU to team operator/, "the lookup's summary");
    expect(frame()).toMatch(/ethereum\s+\S+\s+[\d.]+[kMG]?\s+[\d.]+\s+[\d.]+[kMG]?/);
    expect(frame()).toMatch(/ethereum\s+Nft\s+\S+\s+\S+\/\S+\s+[\d.]+/);
    const cu = Number(/· (\d+) CU to team operator/.exec(frame())![1]);
    expect(cu).toBeGreaterThan(0);
    // Everything fits the terminal: the tabs and the screen's 22 lines.
    expect(frame().split("\n").length).toBeLessThanOrEqual(24);

    // The lookup is in Usage under the operator team, with the positions endpoint like any other.
    await press("2");
    await until(new RegExp(`${OPERATOR_TEAM}\\s+${cu}\\s+${cu}\\s+`), "the operator team's CU");
    await until(/Endpoints of operator/, "the operator team selected");
    expect(frame()).toMatch(/getDefiPositions\s+[1-9]\d*\s+1\s+0/);
    expect(frame()).toMatch(/getBalances\s+[1-9]\d*\s+1\s+0/);
    // No customer team was charged.
    expect(frame()).not.toMatch(/\btest\s+[1-9]/);
    app.unmount();
  });

  it("behavior: a revoked operator key is replaced on the next lookup", async () => {
    const whale = env.devnet.manifest.chains.find((chain) => chain.chain_id === 1)!.wallets.whale!;
    const { app, client, frame, until, press } = openTui();
    await press("5", "/", whale, ENTER);
    await until(/CU to team operator/, "the first lookup");
    const active = async () =>
      (await client.listKeys()).filter((k) => k.team_name === OPERATOR_TEAM && k.revoked_at === null);
    const before = await active();
    expect(before.length).toBeGreaterThanOrEqual(1);
    for (const key of before) await client.revokeKey(key.key_id);

    await press("r");
    await eventually(async () => (await active()).length === 1, 60_000, "a new operator key");
    await until(/CU to team operator/, "the refreshed lookup");
    expect(frame()).not.toMatch(/revoked/i);
    app.unmount();
  });
});
