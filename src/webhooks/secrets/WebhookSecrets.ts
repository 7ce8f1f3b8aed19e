import { Schema } from "effect";

/** A signing secret kept after rotation, valid until `expires_at`. */
export const PreviousSecret = Schema.Struct({
  secret: Schema.String,
  /** ISO-8601; after this instant the secret no longer signs. */
  expires_at: Schema.String,
});
export type PreviousSecret = typeof PreviousSecret.Type;

/** The secrets a webhook signs with: the current one and, for 24 h after a rotation, the previous one. */
export const WebhookSecrets = Schema.Struct({
  current: Schema.String,
  previous: Schema.NullOr(PreviousSecret),
});
export type WebhookSecrets = typeof WebhookSecrets.Type;
