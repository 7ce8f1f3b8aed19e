import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorAnswer } from "../../../src/gateway/httpResponses.js";
import { answerThenLinger, isLingering } from "../../../src/gateway/lingeringClose.js";

const MAX_MS = 300;
let server: Server;
let port: number;
const lingeredSockets: Array<boolean> = [];

beforeAll(async () => {
  // Every request is refused at once, its body unread, with small bounds to keep the test short.
  server = createServer((req, res) => {
    answerThenLinger(req, res, 413, errorAnswer("id", "PAYLOAD_TOO_LARGE", "too large"), {
      maxBytes: 1024 * 1024,
      maxMs: MAX_MS,
    });
    lingeredSockets.push(isLingering(req.socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends a body a few bytes at a time, never finishing it; resolves when the server lets go. */
const trickle = () =>
  new Promise<{ answeredAtMs: number; closedAtMs: number; received: string }>((resolve) => {
    const started = Date.now();
    let answeredAtMs = -1;
    let received = "";
    const socket = connect(port, "127.0.0.1", () => {
      socket.write("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000000\r\n\r\n");
      const timer = setInterval(() => socket.write("aaaa"), 20);
      socket.once("close", () => clearInterval(timer));
    });
    socket.on("data", (chunk: Buffer) => {
      if (answeredAtMs < 0) answeredAtMs = Date.now() - started;
      received += chunk.toString("latin1");
    });
    socket.on("error", () => undefined);
    socket.once("close", () => resolve({ answeredAtMs, closedAtMs: Date.now() - started, received }));
  });

describe("answerThenLinger", () => {
  it("error: a body sent slowly without end gets the answer at once and is cut off after the time bound", async () => {
    const { answeredAtMs, closedAtMs, received } = await trickle();
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received.toLowerCase()).toContain("connection: close\r\n");
    expect(received.endsWith('{"error":"too large","code":"PAYLOAD_TOO_LARGE"}')).toBe(true);
    expect(answeredAtMs).toBeGreaterThanOrEqual(0);
    expect(answeredAtMs).toBeLessThan(MAX_MS);
    expect(closedAtMs).toBeGreaterThanOrEqual(MAX_MS - 20);
    // Generous: a busy machine fires timers late, but never by seconds more than this.
    expect(closedAtMs).toBeLessThan(MAX_MS + 5_000);
    expect(lingeredSockets.at(-1)).toBe(true);
  });
});
