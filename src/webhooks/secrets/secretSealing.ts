import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { WebhookSecrets } from "./WebhookSecrets.js";

/**
 * Signing secrets at rest. A sealed secret is
 * `sealed.v1.<key id>.<iv>.<ciphertext and GCM tag>` (base64url parts): AES-256-GCM
 * under a key only API processes hold, with the webhook id as associated data so
 * a sealed value copied onto another webhook does not open. The key id (the first
 * 8 bytes of the key's SHA-256) names the key, so keys can be rotated: new values
 * are sealed with the first key, and any key held opens. Records written before
 * sealing hold the plain `whsec_` secret; it is still read, and sealed when the
 * record is next written.
 */
const PREFIX = "sealed.v1.";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored secret that cannot be opened here (unknown key, or altered). */
export class SealedSecretError extends Error {}

/** Encrypts and decrypts the signing secrets of webhook records. */
export interface SecretSealer {
  /** Id of the key new values are sealed with. */
  readonly keyId: string;
  /**
   * The stored form of a secret of webhook `webhookId`: a plain secret is sealed,
   * a value sealed with an older key held here is sealed again with the current
   * one, and any other sealed value is kept as it is.
   */
  readonly seal: (secret: string, webhookId: string) => string;
  /** The plain secret of a stored one; throws SealedSecretError when it cannot be opened. */
  readonly reveal: (stored: string, webhookId: string) => string;
}

/** Whether a stored secret is sealed (rather than a plain one written before sealing). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/** Whether `text` is the base64 (standard or URL alphabet) of a 32-byte key. */
export const isSecretKey = (text: string): boolean =>
  /^[A-Za-z0-9+/_-]{43}=?$/.test(text) && Buffer.from(text, "base64").length === KEY_BYTES;

/** The id a key is named by in sealed values. */
export const keyIdOf = (key: Buffer): string =>
  createHash("sha256").update(key).digest().subarray(0, 8).toString("hex");

const aad = (webhookId: string) => Buffer.from(`webhook:${webhookId}`, "utf8");

/** A sealer over `keys` (base64); the first one seals. */
export const makeSecretSealer = (keys: ReadonlyArray<string>): SecretSealer => {
  const ring = new Map<string, Buffer>();
  for (const text of keys) {
    if (!isSecretKey(text)) throw new Error("A webhook secret key must be the base64 of 32 bytes.");
    const key = Buffer.from(text, "base64");
    ring.set(keyIdOf(key), key);
  }
  const [keyId] = ring.keys();
  if (keyId === undefined) throw new Error("At least one webhook secret key is needed.");
  const current = ring.get(keyId) as Buffer;

  const encrypt = (secret: string, webhookId: string) => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", current, iv).setAAD(aad(webhookId));
    const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${keyId}.${iv.toString("base64url")}.${body.toString("base64url")}`;
  };

  const parse = (stored: string) => {
    const [id, iv, body] = stored.slice(PREFIX.length).split(".");
    if (id === undefined || iv === undefined || body === undefined)
      throw new SealedSecretError("A sealed webhook secret is malformed.");
    return { id, iv: Buffer.from(iv, "base64url"), body: Buffer.from(body, "base64url") };
  };

  const reveal = (stored: string, webhookId: string) => {
    if (!isSealed(stored)) return stored;
    const parts = parse(stored);
    const key = ring.get(parts.id);
    if (key === undefined)
      throw new SealedSecretError(
        `The signing secret of webhook ${webhookId} is sealed with key ${parts.id}, which this process does not hold: give every API process the same WEBHOOK_SECRET_KEY.`,
      );
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, parts.iv).setAAD(aad(webhookId));
      decipher.setAuthTag(parts.body.subarray(parts.body.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(parts.body.subarray(0, parts.body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SealedSecretError(`The sealed signing secret of webhook ${webhookId} does not decrypt.`);
    }
  };

  const seal = (secret: string, webhookId: string) => {
    if (!isSealed(secret)) return encrypt(secret, webhookId);
    const id = parse(secret).id;
    if (id === keyId || !ring.has(id)) return secret;
    try {
      return encrypt(reveal(secret, webhookId), webhookId);
    } catch {
      // Unreadable under its own key: kept as it is rather than failing the write it rides along with.
      return secret;
    }
  };

  return { keyId, seal, reveal };
};

/** A webhook's secrets in their stored form (see SecretSealer.seal). */
export const sealSecrets = (
  secrets: WebhookSecrets,
  webhookId: string,
  sealer: SecretSealer,
): WebhookSecrets => ({
  current: sealer.seal(secrets.current, webhookId),
  previous:
    secrets.previous === null
      ? null
      : { ...secrets.previous, secret: sealer.seal(secrets.previous.secret, webhookId) },
});
