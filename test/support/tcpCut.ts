import { connect, createServer, type Socket } from "node:net";
import { freePort } from "../../src/lib/freePort.js";

/**
 * A TCP relay to `target` ("host:port" or a URL with them) that can cut every connection through it
 * and refuse new ones until restored: a client behind it loses its server for as long as the test
 * wants, while everyone else still reaches the server.
 */
export const startTcpCut = async (target: string) => {
  const { hostname, port } = new URL(target.includes("://") ? target : `tcp://${target}`);
  const open = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(Number(port), hostname);
    open.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listenPort = await freePort();
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  return {
    url: `nats://127.0.0.1:${listenPort}`,
    /** Cuts every connection through the relay; new ones are refused until `restore`. */
    cut: () => {
      cut = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    restore: () => {
      cut = false;
    },
    stop: () => {
      cut = true;
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
