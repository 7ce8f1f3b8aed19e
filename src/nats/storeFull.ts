import { JetStreamApiError } from "@nats-io/jetstream";

/** JetStream's answer to a publish its store has no room for ("insufficient resources"). */
const INSUFFICIENT_RESOURCES = 10023;

/**
 * Whether a JetStream call (or an error wrapping one as its `cause`) was refused because the
 * server's store is full. CHAIN_EVENTS's own byte bound never causes it (past the bound the oldest
 * messages go): other streams filling `max_file_store` do, and the server then refuses every
 * stream's publishes, CHAIN_EVENTS's included, whatever it reserved for them.
 */
export const isStoreFull = (error: unknown): boolean => {
  const cause = (error as { readonly cause?: unknown } | undefined)?.cause;
  if (cause !== undefined && cause !== error && isStoreFull(cause)) return true;
  return error instanceof JetStreamApiError
    ? error.code === INSUFFICIENT_RESOURCES
    : error instanceof Error && /insufficient resources/i.test(error.message);
};
