import { join } from "node:path";
import { freePort } from "../lib/freePort.js";
import { type ClusterMembership, type SpawnedNatsServer, spawnNatsServer } from "./NatsServerProcess.js";
import type { NatsCredentials } from "./natsCredentials.js";

/** One server of a local cluster, which can be killed and started again on the same ports and store. */
export interface ClusterNode {
  readonly name: string;
  readonly url: string;
  readonly storeDir: string;
  /** Whether its process is running. */
  readonly running: () => boolean;
  /** SIGKILL: a crashed machine, as far as its peers and clients can tell. */
  readonly kill: () => Promise<void>;
  /** SIGTERM and wait. */
  readonly stop: () => Promise<void>;
  /** Starts it again (after kill or stop) with the same name, ports and store: it rejoins its peers. */
  readonly start: () => Promise<void>;
}

export interface NatsCluster {
  readonly nodes: ReadonlyArray<ClusterNode>;
  /** Every node's client URL, comma-separated, as NATS_URL takes them. */
  readonly servers: string;
  readonly stop: () => Promise<void>;
}

/**
 * Starts `size` nats-servers on this machine (free loopback ports, one store
 * each under `dir`), each with the repository's nats.conf (the role users and
 * JetStream) and routes to all the others: a JetStream cluster, as on separate
 * machines but on one. The local cluster (`npm run cluster`) and the fault
 * tests use it. Streams need JETSTREAM_REPLICAS > 1 to survive a node.
 */
export const startNatsCluster = async (options: ClusterOptions): Promise<NatsCluster> => {
  // A free port is free when asked, not when the server binds it: another process (a test file
  // running beside) can take it in between. The servers then start again on other ports, in
  // stores of their own.
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOnce(options, attempt === 0 ? "" : `-${attempt}`);
    } catch (error) {
      if (attempt >= 2 || !String(error).includes("address already in use")) throw error;
    }
  }
};

interface ClusterOptions {
  readonly dir: string;
  readonly credentials: NatsCredentials;
  readonly size?: number;
  readonly name?: string;
  readonly log?: (line: string) => void;
}

const startOnce = async (options: ClusterOptions, storeSuffix: string): Promise<NatsCluster> => {
  const host = "127.0.0.1";
  const size = options.size ?? 3;
  const ports = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort() });
  const routes = ports.map((p) => `nats://${host}:${p.route}`);
  const nodes = ports.map((port, i): ClusterNode => {
    const name = `n${i + 1}`;
    const membership: ClusterMembership = {
      name: options.name ?? "svc",
      serverName: name,
      routePort: port.route,
      routes,
    };
    const storeDir = join(options.dir, `${name}${storeSuffix}`);
    const spawnOptions = {
      host,
      port: port.client,
      storeDir,
      credentials: options.credentials,
      cluster: membership,
      ...(options.log === undefined ? {} : { log: (line: string) => options.log?.(`${name}: ${line}`) }),
    };
    let server: SpawnedNatsServer | undefined;
    const alive = () =>
      server !== undefined && server.process.exitCode === null && server.process.signalCode === null;
    return {
      name,
      url: `nats://${host}:${port.client}`,
      storeDir,
      running: alive,
      kill: async () => {
        await server?.kill();
      },
      stop: async () => {
        await server?.stop();
      },
      start: async () => {
        if (alive()) return;
        server = await spawnNatsServer(spawnOptions);
      },
    };
  });
  // In parallel: each waits for its client port only, and routes form as the peers come up.
  const started = await Promise.allSettled(nodes.map((node) => node.start()));
  const failed = started.find((result) => result.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw failed.reason;
  }
  return {
    nodes,
    servers: nodes.map((node) => node.url).join(","),
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
};
