import { createServer, type IncomingHttpHeaders, request, type ServerResponse } from "node:http";
import { freePort } from "../../src/lib/freePort.js";

export type ProxyMode = "pass" | "error500" | "drop";

/**
 * An HTTP proxy in front of a JSON-RPC node that can be told to answer 500s or
 * to drop connections, to test that followers survive a misbehaving node; or,
 * passing, to answer 500 to the requests whose body `refuse` picks (one block's reads),
 * or `null` to those `unserved` picks (a block the node names but does not serve yet).
 */
export const startFlakyProxy = async (target: string) => {
  let mode: ProxyMode = "pass";
  let failures = 0;
  let refuse: ((body: string) => boolean) | undefined;
  let unserved: ((body: string) => boolean) | undefined;
  let nulls = 0;
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (mode === "drop") {
      failures++;
      req.socket.destroy();
      return;
    }
    if (mode === "error500") {
      failures++;
      req.resume();
      res.writeHead(500, { "content-type": "text/plain" }).end("upstream is down");
      return;
    }
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => forwardBody(Buffer.concat(chunks), res, req.method, req.headers));
  });
  const forwardBody = (
    body: Buffer,
    res: ServerResponse,
    method: string | undefined,
    headers: IncomingHttpHeaders,
  ) => {
    const text = body.toString("utf8");
    if (refuse?.(text)) {
      failures++;
      res.writeHead(500, { "content-type": "text/plain" }).end("refused");
      return;
    }
    if (unserved?.(text)) {
      nulls++;
      const { id } = JSON.parse(text) as { id: unknown };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id, result: null }));
      return;
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname,
        method,
        headers,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    forward.end(body);
  };
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    setMode: (next: ProxyMode) => {
      mode = next;
    },
    /** Requests whose body `pick` matches are answered 500 while passing; `undefined` forwards all again. */
    refuseWhen: (pick: ((body: string) => boolean) | undefined) => {
      refuse = pick;
    },
    /** Single requests whose body `pick` matches are answered `null`; `undefined` forwards all again. */
    answerNullWhen: (pick: ((body: string) => boolean) | undefined) => {
      unserved = pick;
    },
    failures: () => failures,
    /** Requests answered `null` by `answerNullWhen`. */
    nulls: () => nulls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
