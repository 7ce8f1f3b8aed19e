import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KV } from "@nats-io/kv";
import type { Msg } from "@nats-io/transport-node";
import { Effect, Option, Schema } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { loadSecretKeys } from "../../../src/webhooks/secrets/secretKeyFile.js";
import { isSealed, makeSecretSealer } from "../../../src/webhooks/secrets/secretSealing.js";
import { decodeRecord, WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import { adminBuckets } from "../../support/anvilService.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { type RunningService, startService, writeChainsFile } from "../../support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../../support/syntheticBlocks.js";
import { addressOf, type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

let nats: TestNats;
let anvil: AnvilInstance;
let chainsConfig: string;
let dataDir: string;
let service: RunningService;
let key: string;
let receiver: Receiver;
let webhooks: KV;
let publish: ReturnType<typeof chainPublisher>;
let nextBlock = 7_000_000;
let nextWallet = 0x7000;

// The key is not configured: each start uses the one generated into DATA_DIR.
const settings = {
  webhookAllowHttp: true,
  webhookAllowedHosts: ["127.0.0.0/8"],
  webhookSecretKeys: Option.none(),
};
const start = () => startService(nats, { chainsConfig, roles: ["gateway", "api"], settings, dataDir });
const call: Caller = (method, path, body) => callerFor(service.baseUrl, key)(method, path, body);

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-sealed-"));
  chainsConfig = await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]);
  dataDir = join(dir, "data");
  service = await start();
  key = (await Effect.runPromise(createKey(await adminBuckets(await nats.connectAs("admin")), "sealed"))).key;
  receiver = await startReceiver();
  webhooks = await Effect.runPromise(openBucket(await nats.connectAs("api"), "webhooks"));
  publish = chainPublisher(await nats.connectAs("ingest"));
});

afterAll(async () => {
  await receiver?.stop();
  await service?.stop();
  await anvil?.stop();
  await nats?.stop();
});

const createHook = async () => {
  const wallet = addressOf(nextWallet++);
  const created = await call("POST", WEBHOOKS, {
    name: "sealed",
    url: receiver.url,
    type: "transactions",
    addresses: [wallet],
  });
  expect(created.status).toBe(200);
  return { id: created.json.id as string, secret: created.json.secret as string, wallet };
};

/** Publishes a block touching `wallet` every 200 ms until a delivery for the webhook arrives. */
const deliveredTo = async (id: string, wallet: string) => {
  const deliveries = () => receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === id);
  const deadline = Date.now() + 30_000;
  while (deliveries().length === 0) {
    if (Date.now() > deadline) throw new Error(`no delivery for webhook ${id}`);
    await publish.block(syntheticBlock(1, nextBlock++, wallet, addressOf(1)));
    await new Promise((r) => setTimeout(r, 200));
  }
  return deliveries();
};

/** Every file of a directory tree, as text. */
const filesUnder = async (dir: string): Promise<ReadonlyArray<string>> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), "latin1")),
  );
};

describe("webhook signing secrets at rest", () => {
  it("behavior: the stored record, the broker's files and a bus reader hold no plain secret; the key under DATA_DIR opens them", async () => {
    const admin = await nats.connectAs("admin");
    const seen: Array<Msg> = [];
    const watch = admin.subscribe("$KV.webhooks.>", {
      callback: (_, msg) => {
        seen.push(msg);
      },
    });
    await admin.flush();
    const hook = await createHook();
    const rotated = (await call("POST", `${WEBHOOKS}/${hook.id}/secret/rotate`)).json.secret as string;

    const text = (await webhooks.get(`hook.${hook.id}`))?.string() ?? "";
    expect(text).not.toContain("whsec_");
    const stored = decodeRecord(text);
    expect(isSealed(stored.secrets.current) && isSealed(stored.secrets.previous?.secret ?? "")).toBe(true);
    const sealer = makeSecretSealer(await loadSecretKeys(dataDir, Option.none()));
    expect(sealer.reveal(stored.secrets.current, hook.id)).toBe(rotated);
    expect(sealer.reveal(stored.secrets.previous?.secret ?? "", hook.id)).toBe(hook.secret);

    await admin.flush();
    watch.unsubscribe();
    expect(seen.some((m) => m.subject === `$KV.webhooks.hook.${hook.id}`)).toBe(true);
    expect(seen.filter((m) => m.string().includes("whsec_"))).toEqual([]);
    const onDisk = await filesUnder(nats.storeDir);
    for (const secret of [hook.secret, rotated]) {
      expect(onDisk.some((file) => file.includes(secret))).toBe(false);
      expect(onDisk.some((file) => file.includes(secret.slice("whsec_".length)))).toBe(false);
    }
  });

  it("behavior: after a restart over the same DATA_DIR, deliveries are signed with the secret sealed before it", async () => {
    const hook = await createHook();
    await service.stop();
    service = await start();
    const deliveries = await deliveredTo(hook.id, hook.wallet);
    expect(receiver.unverified(hook.secret, hook.id)).toEqual([]);
    expect(deliveries[0]?.headers["webhook-signature"]).toMatch(/^v1,/);
  });

  it("default: a record written before sealing (plain secret) still signs, and is sealed when next written", async () => {
    const hook = await createHook();
    const legacySecret = "whsec_bGVnYWN5IHNlY3JldCBmcm9tIGJlZm9yZSBzZWFsaW5nIQ==";
    const current = decodeRecord((await webhooks.get(`hook.${hook.id}`))?.string() ?? "");
    const legacy = new WebhookRecord({ ...current, secrets: { current: legacySecret, previous: null } });
    await webhooks.put(`hook.${hook.id}`, JSON.stringify(Schema.encodeSync(WebhookRecord)(legacy)));

    // The service takes the rewritten record from its watch of the bucket; a block planned before
    // that is signed with the secret it replaced. Once one is signed with the plain secret, every
    // later delivery is.
    const ofHook = () =>
      receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === hook.id);
    const signedWith = (secret: string, deliveries: ReturnType<typeof ofHook>) =>
      deliveries.filter((r) => !receiver.unverified(secret, hook.id).includes(r));
    const deadline = Date.now() + 30_000;
    while (signedWith(legacySecret, ofHook()).length === 0) {
      if (Date.now() > deadline) throw new Error("no delivery signed with the record's plain secret");
      await publish.block(syntheticBlock(1, nextBlock++, hook.wallet, addressOf(1)));
      await new Promise((r) => setTimeout(r, 200));
    }
    const seen = ofHook().length;
    while (ofHook().length === seen) {
      if (Date.now() > deadline) throw new Error("no later delivery");
      await publish.block(syntheticBlock(1, nextBlock++, hook.wallet, addressOf(1)));
      await new Promise((r) => setTimeout(r, 200));
    }
    const later = ofHook().slice(seen);
    expect(signedWith(legacySecret, later)).toEqual(later);

    expect((await call("PATCH", `${WEBHOOKS}/${hook.id}`, { name: "renamed" })).status).toBe(200);
    const text = (await webhooks.get(`hook.${hook.id}`))?.string() ?? "";
    expect(text).not.toContain("whsec_");
    const sealer = makeSecretSealer(await loadSecretKeys(dataDir, Option.none()));
    expect(sealer.reveal(decodeRecord(text).secrets.current, hook.id)).toBe(legacySecret);
  });
});
