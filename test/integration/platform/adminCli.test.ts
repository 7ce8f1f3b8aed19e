import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilService, startAnvilService } from "../../support/anvilService.js";
import type { TestNats } from "../../support/natsServer.js";
import { PROCESS_DEADLINE_MS, runTs } from "../../support/runTs.js";
import type { RunningService } from "../../support/serviceHarness.js";

let env: AnvilService;
let nats: TestNats;
let service: RunningService;

const admin = (...args: Array<string>) =>
  runTs("src/cli/admin.ts", args, {
    NATS_URL: nats.url,
    NATS_USER: "admin",
    NATS_PASSWORD: nats.credentials.admin,
  });

beforeAll(async () => {
  env = await startAnvilService();
  ({ nats, service } = env);
});

afterAll(async () => {
  await env?.stop();
});

// Each test runs the CLI several times, each a process of its own.
describe("admin CLI", { timeout: 5 * PROCESS_DEADLINE_MS }, () => {
  it("default: keys create prints a working key as its last line; keys revoke stops it", async () => {
    const created = await admin("keys", "create", "--team", "cli-team");
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    const key = lines.at(-1)!;
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    const res = await fetch(`${service.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ team_name: "cli-team" });

    const listed = await admin("keys", "list");
    expect(listed.stdout).toContain("cli-team");
    const keyId = /key_[0-9a-f]{16}/.exec(created.stdout)![0];
    const revoked = await admin("keys", "revoke", keyId);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${keyId}`);
    const teams = await admin("teams", "list");
    expect(teams.stdout).toMatch(/cli-team\s+unlimited/);
  });

  it("default: chains prints each chain's ingest and index as the service reports them", async () => {
    const chains = await admin("chains");
    expect(chains.code, chains.stderr).toBe(0);
    const [header, ...rows] = chains.stdout.trim().split("\n");
    expect(header).toMatch(/^CHAIN\s+NAME\s+MODE\s+HEAD\s+PROCESSED\s+LAG\s+INDEX FROM\s+LAST ERROR$/);
    const health = (await (await fetch(`${service.baseUrl}/healthz`)).json()) as {
      chains: ReadonlyArray<{ chain_id: number; name: string }>;
    };
    expect(rows.map((row) => row.split(/\s+/).slice(0, 3))).toEqual(
      health.chains.map((c) => [String(c.chain_id), c.name, "live"]),
    );
    // A whole-history chain has no discovery or backfill line.
    expect(chains.stdout).not.toContain("discovery (index from");
  });

  it("error: a bad command prints the usage and exits 1; a bad team name is explained", async () => {
    const bad = await admin("keys", "explode");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("keys create --team <name>");
    const badChains = await admin("chains", "explode");
    expect(badChains.code).toBe(1);
    expect(badChains.stderr).toContain("chains ");
    const badTeam = await admin("keys", "create", "--team", "Bad Name!");
    expect(badTeam.code).toBe(1);
    expect(badTeam.stderr).toContain('Team name "Bad Name!" is invalid');
  });
});
