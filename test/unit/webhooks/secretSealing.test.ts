import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Option } from "effect";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { attemptDelivery } from "../../../src/webhooks/delivery/attemptDelivery.js";
import type { SendResult } from "../../../src/webhooks/delivery/HttpSender.js";
import type { Outbox } from "../../../src/webhooks/outbox/Outbox.js";
import type { AttemptRecord, QueuedDelivery } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import { loadSecretKeys, secretKeyPath } from "../../../src/webhooks/secrets/secretKeyFile.js";
import {
  isSealed,
  makeSecretSealer,
  SealedSecretError,
  sealSecrets,
} from "../../../src/webhooks/secrets/secretSealing.js";
import { freshSecrets, generateSecret, rotateSecrets } from "../../../src/webhooks/secrets/signingSecret.js";
import { decodeRecord, encodeRecord, type WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const newKey = () => randomBytes(32).toString("base64");
const HOOK = "01900000-0000-7000-8000-000000000001";

const record = (secrets = freshSecrets()) =>
  webhookRecord({ id: HOOK, secrets, name: "hook", type: "activities" });

describe("sealed webhook secrets", () => {
  it("behavior: a sealed secret holds no trace of the plain one and opens to it with the key", () => {
    const sealer = makeSecretSealer([newKey()]);
    const secret = generateSecret();
    const sealed = sealer.seal(secret, HOOK);
    expect(sealed).toMatch(new RegExp(`^sealed\\.v1\\.${sealer.keyId}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain("whsec_");
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(sealer.reveal(sealed, HOOK)).toBe(secret);
    // Sealing again with the same key changes nothing (every write seals what it stores).
    expect(sealer.seal(sealed, HOOK)).toBe(sealed);
  });

  it("behavior: an encoded record carries only sealed secrets, current and previous", () => {
    const sealer = makeSecretSealer([newKey()]);
    const first = generateSecret();
    const rotated = rotateSecrets({ current: first, previous: null }, generateSecret(), 0);
    const text = encodeRecord(record(rotated), sealer);
    expect(text).not.toContain("whsec_");
    const stored = decodeRecord(text);
    expect(isSealed(stored.secrets.current) && isSealed(stored.secrets.previous?.secret ?? "")).toBe(true);
    expect(sealer.reveal(stored.secrets.current, HOOK)).toBe(rotated.current);
    expect(sealer.reveal(stored.secrets.previous?.secret ?? "", HOOK)).toBe(first);
  });

  it("default: a plain secret written before sealing is read as it is", () => {
    const sealer = makeSecretSealer([newKey()]);
    const legacy = generateSecret();
    expect(sealer.reveal(legacy, HOOK)).toBe(legacy);
  });

  it("error: the wrong key, another webhook's id or an altered value does not open", () => {
    const sealer = makeSecretSealer([newKey()]);
    const sealed = sealer.seal(generateSecret(), HOOK);
    expect(() => makeSecretSealer([newKey()]).reveal(sealed, HOOK)).toThrow(SealedSecretError);
    expect(() => makeSecretSealer([newKey()]).reveal(sealed, HOOK)).toThrow(/WEBHOOK_SECRET_KEY/);
    expect(() => sealer.reveal(sealed, "01900000-0000-7000-8000-000000000002")).toThrow(SealedSecretError);
    const altered = `${sealed.slice(0, -2)}${sealed.endsWith("AA") ? "BB" : "AA"}`;
    expect(() => sealer.reveal(altered, HOOK)).toThrow(SealedSecretError);
  });

  it("behavior: after a key rotation old values open, and each is sealed with the new key when next written", () => {
    const oldKey = newKey();
    const before = makeSecretSealer([oldKey]);
    const secret = generateSecret();
    const sealedOld = before.seal(secret, HOOK);
    const after = makeSecretSealer([newKey(), oldKey]);
    expect(after.reveal(sealedOld, HOOK)).toBe(secret);
    const resealed = sealSecrets({ current: sealedOld, previous: null }, HOOK, after).current;
    expect(resealed).toContain(`.${after.keyId}.`);
    expect(resealed).not.toBe(sealedOld);
    expect(after.reveal(resealed, HOOK)).toBe(secret);
    // A value under a key this process does not hold is kept, not lost.
    const foreign = makeSecretSealer([newKey()]).seal(secret, HOOK);
    expect(after.seal(foreign, HOOK)).toBe(foreign);
  });
});

describe("the webhook secret key", () => {
  it("default: generated into DATA_DIR once (mode 600) and read back on later starts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-key-"));
    const [first] = await loadSecretKeys(dir, Option.none());
    expect((await stat(secretKeyPath(dir))).mode & 0o777).toBe(0o600);
    expect(await loadSecretKeys(dir, Option.none())).toEqual([first]);
    expect((await readFile(secretKeyPath(dir), "utf8")).trim()).toBe(first);
  });

  it("behavior: WEBHOOK_SECRET_KEY wins over the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-key-"));
    const configured = [newKey(), newKey()];
    expect(await loadSecretKeys(dir, Option.some(configured))).toEqual(configured);
  });

  it("error: a damaged key file stops the start instead of being replaced", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-key-"));
    await writeFile(secretKeyPath(dir), "not a key\n");
    await expect(loadSecretKeys(dir, Option.none())).rejects.toThrow(/does not hold a webhook secret key/);
    expect(await readFile(secretKeyPath(dir), "utf8")).toBe("not a key\n");
  });
});

describe("signing with sealed secrets", () => {
  const delivery: QueuedDelivery = {
    seq: 1,
    order: "0000000000001-00000000000001-00000",
    id: "msg_0123456789abcdef0123456789abcdef",
    webhook_id: HOOK,
    team_id: "TEAM",
    type: "activities",
    chain_id: 1,
    block_number: 10,
    block_hash: `0x${"ab".repeat(32)}`,
    removed: false,
    events: 1,
    body: '{"activities":[]}',
    created_at: 0,
    attempts: 0,
    next_attempt_at: 0,
    last_status: null,
    last_error: null,
  };
  const attempt = async (sealed: WebhookRecord, sealer: ReturnType<typeof makeSecretSealer>) => {
    const posts: Array<Record<string, string>> = [];
    const attempts: Array<AttemptRecord> = [];
    const outbox = { recordAttempt: async (_: QueuedDelivery, a: AttemptRecord) => void attempts.push(a) };
    const outcome = await attemptDelivery(
      {
        outbox: outbox as unknown as Outbox,
        sender: {
          post: async (_url, headers): Promise<SendResult> => {
            posts.push(headers);
            return { status: 200, headers: {}, error: null, latencyMs: 1 };
          },
        },
        schedule: [1_000],
        now: () => Date.now(),
        random: () => 0,
        charges: { delivered: () => {}, recorded: () => {} },
        markGone: async () => {},
        sealer,
      },
      sealed,
      delivery,
    );
    return { outcome, posts, attempts };
  };

  it("behavior: a delivery is signed with the opened secret and verifies with the one the client holds", async () => {
    const sealer = makeSecretSealer([newKey()]);
    const secrets = freshSecrets();
    const { outcome, posts } = await attempt(record(sealSecrets(secrets, HOOK, sealer)), sealer);
    expect(outcome.kind).toBe("delivered");
    expect(() => new Webhook(secrets.current).verify(delivery.body, posts[0] ?? {})).not.toThrow();
  });

  it("error: a secret sealed with a key this process lacks fails the attempt without sending, and says why", async () => {
    const other = makeSecretSealer([newKey()]);
    const { outcome, posts, attempts } = await attempt(
      record(sealSecrets(freshSecrets(), HOOK, other)),
      makeSecretSealer([newKey()]),
    );
    expect(posts).toEqual([]);
    expect(outcome.kind).toBe("retry");
    expect(attempts[0]?.error).toMatch(/same WEBHOOK_SECRET_KEY/);
  });
});
