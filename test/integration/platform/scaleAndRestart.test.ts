import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, startService, writeChainsFile } from "../../support/serviceHarness.js";

let nats: TestNats;
let anvil: Awaited<ReturnType<typeof startAnvil>>;
let chainsConfig: string;

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-chains-"));
  chainsConfig = await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]);
});

afterAll(async () => {
  await anvil?.stop();
  await nats?.stop();
});

describe("roles in separate processes, restarts", () => {
  it("behavior: with two API workers in the queue group, either can stop without an outage", async () => {
    const gateway = await startService(nats, { chainsConfig, roles: ["gateway"] });
    const workerA = await startService(nats, { chainsConfig, roles: ["api"] });
    const workerB = await startService(nats, { chainsConfig, roles: ["api"] });
    await eventually(
      async () => {
        const health = (await (await fetch(`${gateway.baseUrl}/healthz`)).json()) as {
          roles?: Record<string, number>;
        };
        return health.roles?.api === 2 && health.roles?.gateway === 1;
      },
      30_000,
      "two api instances and one gateway in /healthz",
    );
    const admin = await nats.connectAs("admin");
    const buckets = {
      keys: await Effect.runPromise(openBucket(admin, "keys")),
      teams: await Effect.runPromise(openBucket(admin, "teams")),
    };
    const { key } = await Effect.runPromise(createKey(buckets, "scale"));
    const call = () =>
      fetch(`${gateway.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } }).then((r) => r.status);
    expect(await Promise.all(Array.from({ length: 20 }, call))).toEqual(Array(20).fill(200));

    await workerA.stop();
    expect(await Promise.all(Array.from({ length: 20 }, call))).toEqual(Array(20).fill(200));
    await workerB.stop();
    expect(await call()).toBe(503);
    await gateway.stop();
  });

  it("behavior: a restarted service keeps teams and keys, and setting up streams again is harmless", async () => {
    const first = await startService(nats, { chainsConfig });
    const admin = await nats.connectAs("admin");
    const buckets = {
      keys: await Effect.runPromise(openBucket(admin, "keys")),
      teams: await Effect.runPromise(openBucket(admin, "teams")),
    };
    const { key } = await Effect.runPromise(createKey(buckets, "survivor"));
    expect((await fetch(`${first.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } })).status).toBe(
      200,
    );
    await first.stop();
    const second = await startService(nats, { chainsConfig });
    const res = await fetch(`${second.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ team_name: "survivor" });
    await second.stop();
  });
});
