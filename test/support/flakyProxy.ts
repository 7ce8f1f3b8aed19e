import { createServer, request } from "node:http";
import { freePort } from "../../src/devnet/freePort.js";

export type ProxyMode = "pass" | "error500" | "drop";

/**
 * An HTTP proxy in front of a JSON-RPC node that can be told to answer 500s or
 * to drop connections, to test that followers survive a misbehaving node.
 */
export const startFlakyProxy = async (target: string) => {
  let mode: ProxyMode = "pass";
  let failures = 0;
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
    req.pipe(forward);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    setMode: (next: ProxyMode) => {
      mode = next;
    },
    failures: () => failures,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
