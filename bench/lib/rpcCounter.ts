import { createServer, request } from "node:http";
import { freePort } from "../../src/lib/freePort.js";

/** A pass-through JSON-RPC proxy that counts calls by method (batches included), to count eth_calls per request. */
export const startRpcCounter = async (target: string) => {
  const counts = new Map<string, number>();
  let lastCallBody: Buffer | undefined;
  /** Bodies of the single eth_calls forwarded since `mark()`. */
  let marked: Array<Buffer> = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { method?: string } | Array<{ method?: string }>;
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          if (call.method !== undefined) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
        }
        if (!Array.isArray(parsed) && parsed.method === "eth_call") {
          lastCallBody = body;
          marked.push(body);
        }
      } catch {
        // not JSON: forward as is
      }
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: upstream.pathname,
          method: req.method,
          headers: req.headers,
        },
        (response) => {
          res.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(res);
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
    count: (method: string) => counts.get(method) ?? 0,
    /** The raw body of the last single eth_call forwarded, to replay it directly against the node. */
    lastCall: () => lastCallBody,
    /** Starts collecting the eth_calls forwarded from now on (see `callsSinceMark`). */
    mark: () => {
      marked = [];
    },
    /** The raw bodies of the single eth_calls forwarded since `mark()`, in order. */
    callsSinceMark: (): ReadonlyArray<Buffer> => [...marked],
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
