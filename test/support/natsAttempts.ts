import { type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";

/** What one try of an action on the bus came to. */
export type Outcome = { readonly refused: true } | { readonly refused: false; readonly detail: string };

const isPermissionError = (error: unknown): boolean => {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  return /Permissions Violation/i.test(`${message} ${cause}`);
};

/**
 * Publishes with a reply subject (a JetStream API call, a KV write, a request)
 * and says whether the server refused it. Anything else (an answer, an API
 * error, no responders, a timeout) counts as not refused.
 */
export const tryRequest = async (
  nc: NatsConnection,
  subject: string,
  body: string = "",
  headers: Readonly<Record<string, string>> = {},
): Promise<Outcome> => {
  const h = natsHeaders();
  for (const [name, value] of Object.entries(headers)) h.set(name, value);
  try {
    const reply = await nc.request(subject, body, {
      timeout: 2_000,
      ...(Object.keys(headers).length > 0 ? { headers: h } : {}),
    });
    return { refused: false, detail: `answered ${reply.string().slice(0, 160)}` };
  } catch (error) {
    return isPermissionError(error) ? { refused: true } : { refused: false, detail: String(error) };
  }
};

/**
 * Subscribes and says whether the server refused it. The server answers a
 * refused SUB before the PONG of the flush that follows it, so after the flush
 * a refused subscription is already closed with the permission error.
 */
export const trySubscribe = async (nc: NatsConnection, subject: string): Promise<Outcome> => {
  const sub = nc.subscribe(subject);
  await nc.flush();
  if (!sub.isClosed()) {
    sub.unsubscribe();
    return { refused: false, detail: "subscribed" };
  }
  const reason = await sub.closed;
  return isPermissionError(reason) ? { refused: true } : { refused: false, detail: String(reason) };
};
