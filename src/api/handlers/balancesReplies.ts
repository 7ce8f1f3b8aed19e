import { BalancesQuery } from "../../contracts/Balances.js";
import type { RequestEnvelope } from "../../contracts/Envelope.js";
import type { KeptReply } from "../Handler.js";

const encoder = new TextEncoder();
const QUERY_FIELDS = Object.keys(BalancesQuery.fields);

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A balances request as sent (the address as given, every query parameter the endpoint reads),
 * so that a repeated request is answered from its kept reply. Requests whose answer follows the
 * clock are left to the handler: a cursor (`offset`, which expires) and `historical_prices`.
 * Anything but strings is left to the handler too, which refuses it.
 */
export const balancesReplayKey = (envelope: RequestEnvelope): string | undefined => {
  const { params, query } = envelope as { params?: unknown; query?: unknown };
  if (!isObject(params) || typeof params.address !== "string") return undefined;
  if (query !== undefined && query !== null && !isObject(query)) return undefined;
  const values: Array<string | null> = [params.address];
  for (const name of QUERY_FIELDS) {
    const value = query?.[name];
    if (value === undefined) values.push(null);
    else if (typeof value !== "string" || name === "offset" || name === "historical_prices") return undefined;
    else values.push(value);
  }
  return JSON.stringify(values);
};

/** The kept reply: the head encoded once, the per-request tail after it. */
export const keptReply = (head: string, tail: (at: number) => string, fresh: () => boolean): KeptReply => {
  const headBytes = encoder.encode(head);
  return {
    fresh,
    body: (at) => {
      const end = encoder.encode(tail(at));
      const bytes = new Uint8Array(headBytes.length + end.length);
      bytes.set(headBytes);
      bytes.set(end, headBytes.length);
      return bytes;
    },
    bytes: headBytes.length + 256,
  };
};
