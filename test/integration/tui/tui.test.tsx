import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { render } from "ink-testing-library";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { startAnvil } from "../../../src/devnet/AnvilProcess.js";
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

let nats: TestNats;
let service: RunningService;
let anvil: Awaited<ReturnType<typeof startAnvil>>;

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-chains-"));
  service = await startService(nats, {
    chainsConfig: await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]),
  });
});

afterAll(async () => {
  await service?.stop();
  await anvil?.stop();
  await nats?.stop();
});

describe("operator TUI", () => {
  it("behavior: shows each team's usage and, on key 2, the keys, from the running service", async () => {
    const admin = await nats.connectAs("admin");
    const buckets = {
      keys: await Effect.runPromise(openBucket(admin, "keys")),
      teams: await Effect.runPromise(openBucket(admin, "teams")),
    };
    const { key, record } = await Effect.runPromise(createKey(buckets, "tui-team"));
    for (let i = 0; i < 2; i++)
      await fetch(`${service.baseUrl}/v1/account`, { headers: { "x-svc-api-key": key } });

    // Given the TUI connected as the admin user
    const app = render(<App client={makeAdminClient(admin)} />);
    // Then the usage screen lists the team with its 2 requests
    await eventually(async () => /tui-team\s+0\s+2\s+0/.test(app.lastFrame() ?? ""), 10_000, "usage row");
    // When the operator presses 2
    app.stdin.write("2");
    // Then the keys screen shows the new key as active
    await eventually(async () => (app.lastFrame() ?? "").includes(record.key_id), 10_000, "key row");
    expect(app.lastFrame()).toMatch(new RegExp(`${record.key_id}\\s+tui-team\\s+svc_\\S+\\s+active`));
    app.unmount();
  });
});
