import { createHmac } from "node:crypto";
import { SECRET_PREFIX } from "../signingSecret.js";

/**
 * Standard Webhooks `v1` signature: base64 HMAC-SHA256, keyed with the
 * secret's base64-decoded bytes (the part after `whsec_`), over
 * `<webhook-id>.<webhook-timestamp>.<body>` exactly as sent.
 */
export const signV1 = (secret: string, id: string, timestamp: number, body: string): string => {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
};

/** The `webhook-signature` header: one `v1,` entry per secret, space-separated (rotation sends two). */
export const signatureHeader = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestamp: number,
  body: string,
): string => secrets.map((secret) => signV1(secret, id, timestamp, body)).join(" ");
