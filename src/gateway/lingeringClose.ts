import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorAnswer } from "./httpResponses.js";

/**
 * How much of a refused body is still read (and dropped) after the answer, bytes.
 * A client that reads answers early still sends what its socket buffers hold before
 * it stops: several MiB on loopback, over 16 MiB from a client whose event loop was
 * busy for 50 ms. One that reads only after sending gets its answer for bodies up to
 * this size. Reading keeps nothing, so the cost is bandwidth, not memory.
 */
export const LINGER_MAX_BYTES = 32 * 1024 * 1024;

/**
 * How long a connection may stay open after a refusal, ms, however slowly the client
 * sends. Far below what Node allows an unread body by itself (its request timeout)
 * and nginx's lingering close (30 s): the answer is out, only a reset is being avoided.
 */
export const LINGER_MAX_MS = 5_000;

export interface LingerBounds {
  readonly maxBytes: number;
  readonly maxMs: number;
}

const DEFAULT_BOUNDS: LingerBounds = { maxBytes: LINGER_MAX_BYTES, maxMs: LINGER_MAX_MS };

/** Connections whose answer is written while their request body is still arriving. */
const lingering = new WeakSet<object>();

/**
 * Whether `socket` carries an answer already written while its request body is
 * still arriving: an HTTP parse error there must not add a second answer.
 */
export const isLingering = (socket: object): boolean => lingering.has(socket);

/**
 * Answers a request whose body is refused before the client has finished sending
 * it, then closes the connection, without a reset unless the client exceeds `bounds`.
 *
 * Closing a socket with unread bytes makes the kernel send a reset; a client still
 * writing the body (Node's fetch, undici) then fails with `write EPIPE` instead of
 * reading the answer already on its way. So the answer is written in full at once,
 * with `connection: close`, and the rest of the body is read and dropped until it
 * ends (then the connection closes cleanly), or until the client closes it, which
 * clients that read answers early do as soon as they see it. Reading never keeps
 * what it reads, and stops at `bounds`: past them the connection is cut, so a
 * client sending without end holds neither the socket nor the server for long.
 */
export const answerThenLinger = (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  answer: ErrorAnswer,
  bounds: LingerBounds = DEFAULT_BOUNDS,
) => {
  res.writeHead(status, { ...answer.headers, connection: "close" });
  // `end` is held back: once a `connection: close` answer ends, Node destroys the socket,
  // unread body or not. The content-length lets the client see the answer complete anyway.
  res.write(answer.body);
  if (req.readableEnded) {
    res.end();
    return;
  }
  if (req.destroyed || res.destroyed) {
    res.destroy();
    return;
  }
  lingering.add(req.socket);
  let dropped = 0;
  const cut = () => res.destroy();
  const timer = setTimeout(cut, bounds.maxMs);
  res.once("close", () => clearTimeout(timer));
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > bounds.maxBytes) cut();
  });
  req.once("end", () => res.end());
  req.once("error", cut);
  req.resume();
};
