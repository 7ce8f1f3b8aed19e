import type { IncomingMessage } from "node:http";

/** Largest request body accepted (bytes): larger ones are answered 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyRead =
  | { readonly kind: "ok"; readonly bytes: Buffer }
  | { readonly kind: "tooLarge" }
  | { readonly kind: "aborted" };

/**
 * Reads the request body up to MAX_BODY_BYTES. A declared Content-Length over
 * the limit is refused before reading; a body that grows past it while streaming
 * (chunked) stops being buffered at once, so memory stays bounded either way.
 * What is left of a refused body is the caller's to drain (see answerThenLinger).
 */
export const readBody = (req: IncomingMessage): Promise<BodyRead> =>
  new Promise((resolve) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > MAX_BODY_BYTES) {
      resolve({ kind: "tooLarge" });
      return;
    }
    const chunks: Array<Buffer> = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        settle({ kind: "tooLarge" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => settle({ kind: "ok", bytes: Buffer.concat(chunks) }));
    req.on("error", () => settle({ kind: "aborted" }));
    req.on("aborted", () => settle({ kind: "aborted" }));
  });
