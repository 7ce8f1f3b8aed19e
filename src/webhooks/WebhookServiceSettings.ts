/**
 * The operator's webhook settings (WEBHOOK_* in the README), as the API role hands them to the
 * webhook services: each reads what it uses, and a test builds only this, not the whole config.
 */
export interface WebhookServiceSettings {
  /** Base URL of links in payloads (logos). */
  readonly publicUrl: string;
  /** Whether `http://` targets are accepted (the devnet's default). */
  readonly allowHttp: boolean;
  /** Hosts a target may name even when they resolve to private addresses. */
  readonly allowedHosts: ReadonlyArray<string>;
  readonly maxPerTeam: number;
  readonly maxAddresses: number;
  readonly maxAddressesPerCall: number;
  /** Delays between delivery attempts, in ms. */
  readonly retrySchedule: ReadonlyArray<number>;
  readonly cuPerEvent: number;
  /** How long one delivery attempt may take. */
  readonly timeoutMs: number;
  /** How long an outbox partition lease lasts without renewal. */
  readonly leaseMs: number;
}
