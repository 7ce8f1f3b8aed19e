import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/lib/freePort.js";
import { isListening, type SpawnedNatsServer, spawnNatsServer } from "../../../src/nats/NatsServerProcess.js";
import { inboxPrefix, NATS_USERS } from "../../../src/nats/NatsUser.js";
import type { NatsCredentials } from "../../../src/nats/natsCredentials.js";
import { provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import { eventually } from "../../support/serviceHarness.js";

/**
 * Provisioning a deployment of an earlier version, whose JetStream store still holds the retired
 * address index (`KV_webhook_addresses`, one entry per address and webhook) and keeps five values
 * of each webhook key: the store is made by a bare nats-server (nats.conf lets no user create the
 * retired stream any more), then served with nats.conf, as after an upgrade.
 */

const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** An earlier version's store: the index with a few pairs, and a webhook list changed three times. */
const earlierStore = async (storeDir: string) => {
  const port = await freePort();
  const server = spawn("nats-server", ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", storeDir], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  try {
    await eventually(() => isListening("127.0.0.1", port), 10_000, "the bare nats-server");
    const nc = await connect({ servers: `127.0.0.1:${port}` });
    const kvm = new Kvm(nc);
    const index = await kvm.create("webhook_addresses", { history: 1 });
    for (let n = 0; n < 5; n++)
      await index.put(`0x${String(n).padStart(40, "0")}.wh1`, '{"rev":1,"member":true}');
    const webhooks = await kvm.create("webhooks", { history: 5 });
    for (const list of ['["0x1"]', '["0x1","0x2"]', '["0x2"]'])
      await webhooks.put("addresses.wh1", `{"addresses":${list}}`);
    await nc.close();
  } finally {
    server.kill("SIGTERM");
    await exited;
  }
};

describe("provisioning a deployment of an earlier version", () => {
  it("behavior: deletes the retired address index, keeps one value of each webhook key, and changes nothing the second time", async () => {
    const storeDir = await mkdtemp(join(tmpdir(), "svc-upgrade-"));
    cleanups.push(() => rm(storeDir, { recursive: true, force: true }));
    await earlierStore(storeDir);

    const credentials = Object.fromEntries(
      NATS_USERS.map((u) => [u, randomBytes(12).toString("hex")]),
    ) as NatsCredentials;
    const server: SpawnedNatsServer = await spawnNatsServer({
      host: "127.0.0.1",
      port: await freePort(),
      storeDir,
      credentials,
    });
    cleanups.push(() => server.stop());
    const as = async (user: "provision" | "api") => {
      const nc = await connect({
        servers: server.url,
        user,
        pass: credentials[user],
        inboxPrefix: inboxPrefix(user),
      });
      cleanups.push(() => nc.close());
      return nc;
    };
    const provision = await as("provision");

    const first = await Effect.runPromise(provisionJetStream(provision));
    expect(first.filter((o) => o.outcome === "deleted").map((o) => o.name)).toEqual([
      "stream KV_webhook_addresses",
    ]);
    expect(first.find((o) => o.name === "bucket webhooks")?.outcome).toBe("updated");
    const jsm = await jetstreamManager(provision);
    await expect(jsm.streams.info("KV_webhook_addresses")).rejects.toThrow(/stream not found/i);

    // The webhook's list is the one the notifier now reads: its last value, alone.
    const webhooks = await new Kvm(await as("api")).open("webhooks");
    expect((await webhooks.get("addresses.wh1"))?.string()).toBe('{"addresses":["0x2"]}');
    const revisions: Array<string> = [];
    for await (const entry of await webhooks.history({ key: "addresses.wh1" }))
      revisions.push(entry.string());
    expect(revisions).toEqual(['{"addresses":["0x2"]}']);

    const second = await Effect.runPromise(provisionJetStream(provision));
    expect(second.every((o) => o.outcome === "unchanged")).toBe(true);
  }, 120_000);
});
