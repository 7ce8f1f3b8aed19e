import { exceedsJsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from "../lib/jsonDepth.js";

export type BodyParse =
  | { readonly kind: "ok"; readonly body: unknown }
  | { readonly kind: "invalid"; readonly status: number; readonly code: string; readonly message: string };

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Turns request bytes into JSON. An empty body is `undefined` (the worker decides
 * whether the endpoint needs one); otherwise the content type must be JSON, the
 * bytes valid UTF-8, nested at most MAX_JSON_DEPTH levels, and the text valid JSON.
 */
export const parseJsonBody = (bytes: Buffer, contentType: string | undefined): BodyParse => {
  if (bytes.length === 0) return { kind: "ok", body: undefined };
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json" && !mediaType.endsWith("+json")) {
    return {
      kind: "invalid",
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: `Request bodies must be JSON with Content-Type: application/json (got "${mediaType.slice(0, 100) || "none"}").`,
    };
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return {
      kind: "invalid",
      status: 400,
      code: "INVALID_ENCODING",
      message: "The request body is not valid UTF-8.",
    };
  }
  if (exceedsJsonDepth(bytes, MAX_JSON_DEPTH)) {
    return { kind: "invalid", status: 400, code: "JSON_TOO_DEEP", message: tooDeepMessage() };
  }
  try {
    return { kind: "ok", body: JSON.parse(text) };
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message.slice(0, 200)}` : "";
    return {
      kind: "invalid",
      status: 400,
      code: "MALFORMED_JSON",
      message: `The request body is not valid JSON${detail}.`,
    };
  }
};
