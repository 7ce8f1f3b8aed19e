import type { ServerResponse } from "node:http";
import { API_KEY_HEADER } from "./apiKeyHeaders.js";

/**
 * Headers on every response: CORS for browser clients (keys travel in a header,
 * never cookies), and the compute units charged, 0 for whatever the gateway
 * answers itself; a worker's reply replaces it with what the request cost.
 */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "x-request-id, x-compute-units, retry-after",
  "x-compute-units": "0",
};

/** Preflight answer headers: what browsers may send, the key's extra header names included. */
export const corsPreflightHeaders = (
  keyHeaders: ReadonlyArray<string>,
): Readonly<Record<string, string>> => ({
  ...COMMON_HEADERS,
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers": [
    "content-type",
    API_KEY_HEADER,
    ...keyHeaders,
    "x-request-id",
    "if-none-match",
  ].join(", "),
  "access-control-max-age": "86400",
});

/** A JSON error answer: the body `{"error", "code"}` and the headers that go with it. */
export interface ErrorAnswer {
  readonly headers: Readonly<Record<string, string | number>>;
  readonly body: string;
}

/** Builds the JSON error answer for `code`, with `extraHeaders` among its headers. */
export const errorAnswer = (
  requestId: string,
  code: string,
  message: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): ErrorAnswer => {
  const body = JSON.stringify({ error: message, code });
  return {
    body,
    headers: {
      ...COMMON_HEADERS,
      ...extraHeaders,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": requestId,
    },
  };
};

/** Writes a JSON error body `{"error", "code"}` with the given status. */
export const sendError = (
  res: ServerResponse,
  requestId: string,
  status: number,
  code: string,
  message: string,
  extraHeaders: Readonly<Record<string, string>> = {},
) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const answer = errorAnswer(requestId, code, message, extraHeaders);
  res.writeHead(status, answer.headers);
  res.end(answer.body);
};

/**
 * The raw bytes of an error sent when Node's HTTP parser rejects a request
 * before routing (a 400, or 431 for oversized headers); the connection closes.
 */
export const rawError = (status: string, code: string, message: string): string => {
  const body = JSON.stringify({ error: message, code });
  return `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-compute-units: 0\r\nconnection: close\r\n\r\n${body}`;
};
