import type { ServerResponse } from "node:http";

/** Headers on every response: CORS for browser clients (keys travel in a header, never cookies). */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "x-request-id, x-compute-units, retry-after",
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
  const body = JSON.stringify({ error: message, code });
  res.writeHead(status, {
    ...COMMON_HEADERS,
    ...extraHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
  });
  res.end(body);
};

/** The raw bytes of a 400 sent when Node's HTTP parser rejects a request before routing. */
export const rawBadRequest = (message: string): string => {
  const body = JSON.stringify({ error: message, code: "BAD_HTTP_REQUEST" });
  return `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
};
