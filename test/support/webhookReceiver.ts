import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request a receiver got, with its raw body. */
export interface Received {
  readonly at: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The body parsed (a delivery is always JSON). */
  readonly json: Readonly<Record<string, ReadonlyArray<Readonly<Record<string, unknown>>>>>;
}

/** How the receiver answers one request (default: 200). */
export type Behaviour = (request: Received, res: ServerResponse, index: number) => void;

export const ok: Behaviour = (_, res) => {
  res.writeHead(200).end("ok");
};

/**
 * A webhook receiver on 127.0.0.1 for tests: records every request, answers
 * through a swappable behaviour, and verifies signatures with the
 * `standardwebhooks` package (the receiving side's reference library).
 */
export const startReceiver = async (behaviour: Behaviour = ok) => {
  const received: Array<Received> = [];
  let current = behaviour;
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Received["json"] = {};
      try {
        json = JSON.parse(body) as Received["json"];
      } catch {
        json = {};
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === "string") headers[name] = value;
      const request: Received = { at: performance.now(), headers, body, json };
      received.push(request);
      current(request, res, received.length - 1);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    /** Changes how later requests are answered. */
    behave: (next: Behaviour) => {
      current = next;
    },
    /** Events (elements of the body's array) of every request, with their webhook-id. */
    events: () =>
      received.flatMap((r) =>
        Object.values(r.json).flatMap((list) =>
          Array.isArray(list) ? list.map((event) => ({ ...event, webhook_id: r.headers["webhook-id"] })) : [],
        ),
      ),
    /** Requests (of one webhook, when given) whose signature does not verify against `secret`. */
    unverified: (secret: string, webhookId?: string) =>
      received.filter((r) => {
        if (webhookId !== undefined && r.headers["svc-webhook-subscription-id"] !== webhookId) return false;
        try {
          new Webhook(secret).verify(r.body, r.headers);
          return false;
        } catch {
          return true;
        }
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
