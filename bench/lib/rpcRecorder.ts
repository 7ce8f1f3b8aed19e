import { Agent, createServer, request } from "node:http";
import { freePort } from "../../src/lib/freePort.js";

/** One JSON-RPC call that went through the recorder, as a request of its own (a batch's element too). */
export interface RecordedCall {
  readonly method: string;
  readonly params: ReadonlyArray<unknown>;
  /** The call alone as a JSON-RPC body, to replay it against the node. */
  readonly body: Buffer;
  /** When the HTTP request carrying it arrived and when its answer went back (performance.now()). */
  readonly at: number;
  readonly answeredAt: number;
}

/**
 * A pass-through JSON-RPC proxy that keeps every call it forwards (batches split into their
 * elements), with when it arrived and was answered: what a service sent for one request, to count
 * it by kind and replay it straight against the node.
 */
export const startRpcRecorder = async (target: string) => {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let kept: Array<RecordedCall> = [];
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const at = performance.now();
      let calls: Array<{ method: string; params: ReadonlyArray<unknown> }> = [];
      try {
        const parsed = JSON.parse(body.toString("utf8")) as unknown;
        calls = (Array.isArray(parsed) ? parsed : [parsed]).flatMap((call) =>
          typeof call === "object" &&
          call !== null &&
          typeof (call as { method?: unknown }).method === "string"
            ? [
                {
                  method: (call as { method: string }).method,
                  params: ((call as { params?: unknown }).params ?? []) as ReadonlyArray<unknown>,
                },
              ]
            : [],
        );
      } catch {
        // not JSON: forwarded, not kept
      }
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: upstream.pathname,
          method: req.method,
          headers: req.headers,
          agent,
        },
        (response) => {
          const answer: Array<Buffer> = [];
          response.on("data", (chunk: Buffer) => answer.push(chunk));
          response.on("end", () => {
            const answeredAt = performance.now();
            for (const call of calls)
              kept.push({
                ...call,
                body: Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, ...call })),
                at,
                answeredAt,
              });
            res.writeHead(response.statusCode ?? 502, response.headers);
            res.end(Buffer.concat(answer));
          });
        },
      );
      forward.on("error", () => res.destroy());
      forward.end(body);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    /** The calls answered since the last `take`, in the order they were answered; forgets them. */
    take: (): ReadonlyArray<RecordedCall> => {
      const out = kept;
      kept = [];
      return out;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
};

export type RpcRecorder = Awaited<ReturnType<typeof startRpcRecorder>>;
