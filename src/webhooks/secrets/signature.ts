import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { SECRET_PREFIX } from "./signingSecret.js";

/** Signing keys kept decoded; cleared when it grows past this (secrets come and go with webhooks). */
const MAX_KEYS = 10_000;
const keys = new Map<string, KeyObject>();

/** The HMAC key of a secret: its base64-decoded bytes after `whsec_`, decoded once (a decode per attempt showed in sending's profile). */
const keyOf = (secret: string): KeyObject => {
  let key = keys.get(secret);
  if (key === undefined) {
    key = createSecretKey(
      Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64"),
    );
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(secret, key);
  }
  return key;
};

/**
 * Standard Webhooks `v1` signature: base64 HMAC-SHA256, keyed with the
 * secret's base64-decoded bytes (the part after `whsec_`), over
 * `<webhook-id>.<webhook-timestamp>.<body>` exactly as sent.
 */
export const signV1 = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;

/** The `webhook-signature` header: one `v1,` entry per secret, space-separated (rotation sends two). */
export const signatureHeader = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestamp: number,
  body: string,
): string => secrets.map((secret) => signV1(secret, id, timestamp, body)).join(" ");
