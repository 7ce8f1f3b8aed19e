import { randomBytes } from "node:crypto";
import type { WebhookSecrets } from "./WebhookSecrets.js";

/** Prefix of every signing secret, as in Standard Webhooks. */
export const SECRET_PREFIX = "whsec_";

/** 32 random bytes: within Standard Webhooks' 24 to 64, and the HMAC-SHA256 block-size sweet spot. */
const SECRET_BYTES = 32;

/** How long a rotated-out secret keeps signing alongside the new one, in ms (24 hours). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** A new signing secret: `whsec_` plus the base64 of 32 random bytes. */
export const generateSecret = (): string => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;

/** Secrets for a new webhook. */
export const freshSecrets = (): WebhookSecrets => ({ current: generateSecret(), previous: null });

/**
 * Rotates: `next` becomes current and the current one stays valid for 24 hours.
 * Only one previous secret is kept, so rotating twice within a day retires the
 * oldest at once (receivers were told to switch after the first rotation).
 */
export const rotateSecrets = (secrets: WebhookSecrets, next: string, nowMs: number): WebhookSecrets => ({
  current: next,
  previous: { secret: secrets.current, expires_at: new Date(nowMs + ROTATION_GRACE_MS).toISOString() },
});

/** The secrets that sign a delivery at `nowMs`: the current one first, then the previous one until it expires. */
export const signingSecrets = (secrets: WebhookSecrets, nowMs: number): ReadonlyArray<string> =>
  secrets.previous !== null && Date.parse(secrets.previous.expires_at) > nowMs
    ? [secrets.current, secrets.previous.secret]
    : [secrets.current];
