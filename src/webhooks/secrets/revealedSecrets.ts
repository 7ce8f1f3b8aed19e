import type { SecretSealer } from "./secretSealing.js";

/** Opened secrets held at most; past it the memory starts again (webhooks beyond it pay one decryption more). */
const MAX_HELD = 10_000;

/**
 * `reveal` that opens each stored secret once: every attempt signs with the
 * webhook's secrets, and an AES-GCM decryption per attempt was a visible share
 * of a delivery's CPU. Keyed by the sealed value and the webhook, so a rotated
 * or re-sealed secret is opened afresh; a value that does not open is not held
 * (it throws each time, as before). The plain secrets stay in this process's
 * memory only, as they do while signing.
 */
export const revealOnce = (sealer: Pick<SecretSealer, "reveal">): Pick<SecretSealer, "reveal"> => {
  const opened = new Map<string, string>();
  return {
    reveal: (stored, webhookId) => {
      const key = `${webhookId}\n${stored}`;
      const held = opened.get(key);
      if (held !== undefined) return held;
      const secret = sealer.reveal(stored, webhookId);
      if (opened.size >= MAX_HELD) opened.clear();
      opened.set(key, secret);
      return secret;
    },
  };
};
