import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "../../../src/devnet/multicall3.js";
import { freePort } from "../../../src/lib/freePort.js";
import type { NatsUser } from "../../../src/nats/NatsUser.js";
import { adminBuckets } from "../../support/anvilService.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { type RoleProcess, startRoleProcess } from "../../support/roleProcess.js";
import { PROCESS_DEADLINE_MS, runTs } from "../../support/runTs.js";
import { eventually, writeChainsFile } from "../../support/serviceHarness.js";
import { callerFor, createBody, WEBHOOKS } from "../../support/webhookEnv.js";

/** Anvil's first dev account: 10,000 ETH at genesis. */
const FUNDED = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const WAITING = "does not exist yet: waiting for it to be provisioned";

let nats: TestNats;
let anvil: AnvilInstance;
let base: NodeJS.ProcessEnv;
let dir: string;
const processes: Array<RoleProcess> = [];

/** The environment of one role's process: its own NATS user and data directory. */
const envOf = async (user: NatsUser, extra: NodeJS.ProcessEnv = {}) => ({
  ...base,
  NATS_USER: user,
  NATS_PASSWORD: nats.credentials[user],
  DATA_DIR: await mkdtemp(join(dir, `${user}-`)),
  ...extra,
});

beforeAll(async () => {
  nats = await startTestNats({ provision: false });
  anvil = await startAnvil({ chainId: 1 });
  // Balances are read through Multicall3, which a bare anvil chain lacks.
  await fetch(anvil.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "anvil_setCode",
      params: [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE],
    }),
  });
  dir = await mkdtemp(join(tmpdir(), "svc-processes-"));
  base = {
    NATS_URL: nats.url,
    CHAINS_CONFIG: await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]),
    LOG_LEVEL: "info",
  };
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await anvil?.stop();
  await nats?.stop();
});

// Four processes of the service's own, three of them one after another.
describe("each role in its own OS process under its own NATS user", {
  timeout: 4 * PROCESS_DEADLINE_MS,
}, () => {
  it("behavior: workers wait for provisioning; then balances and webhooks work end to end through the gateway", async () => {
    const api = startRoleProcess("api", await envOf("api"));
    const ingest = startRoleProcess("ingest", await envOf("ingest"));
    processes.push(api, ingest);
    // Neither may create streams: both say what they wait for.
    await Promise.all([api.waitFor(WAITING), ingest.waitFor(WAITING)]);

    const provisioned = await runTs("src/cli/provision.ts", [], {
      ...base,
      NATS_USER: "provision",
      NATS_PASSWORD: nats.credentials.provision,
    });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    expect(provisioned.stdout).toContain("stream CHAIN_EVENTS: created");
    expect(provisioned.stdout).toContain("bucket webhooks: created");

    const port = await freePort();
    const gateway = startRoleProcess("gateway", await envOf("gateway", { PORT: String(port) }));
    processes.push(gateway);
    const baseUrl = `http://127.0.0.1:${port}`;
    let lastHealth = "no answer";
    await eventually(
      async () => {
        const res = await fetch(`${baseUrl}/healthz`).catch(() => undefined);
        if (res !== undefined) lastHealth = `${res.status} ${await res.text()}`;
        return res?.status === 200;
      },
      PROCESS_DEADLINE_MS,
      "healthz 200 with every role up",
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last /healthz: ${lastHealth.slice(0, 1_000)}`);
    });
    const health = (await (await fetch(`${baseUrl}/healthz`)).json()) as { roles: Record<string, number> };
    expect(health.roles).toMatchObject({ gateway: 1, api: 1, ingest: 1 });

    const { key } = await Effect.runPromise(
      createKey(await adminBuckets(await nats.connectAs("admin")), "apart"),
    );
    const call = callerFor(baseUrl, key);
    const balances = await call("GET", `/v1/evm/balances/${FUNDED}?chain_ids=1`);
    expect(balances.status, balances.text).toBe(200);
    expect(balances.json.balances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ chain_id: 1, address: "native", amount: "10000000000000000000000" }),
      ]),
    );

    const created = await call("POST", WEBHOOKS, createBody({ addresses: [FUNDED] }));
    expect(created.status, created.text).toBe(200);
    expect(created.json.secret).toMatch(/^whsec_/);
    const read = await call("GET", `${WEBHOOKS}/${created.json.id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ ...created.json, secret: undefined });

    for (const role of [gateway, api, ingest]) expect(await role.stop()).toBe(0);
  });
});
