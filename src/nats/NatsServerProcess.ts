import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { connect as tcpConnect } from "node:net";
import { fileURLToPath } from "node:url";
import { NATS_USERS, passwordVariable } from "./NatsUser.js";
import type { NatsCredentials } from "./natsCredentials.js";

/** The repository's nats.conf, whatever the working directory. */
export const NATS_CONF_PATH = fileURLToPath(new URL("../../nats.conf", import.meta.url));

export const NATS_INSTALL_HINT =
  "nats-server was not found on PATH: install it with `sudo apt-get install nats-server` (Debian/Ubuntu) or `brew install nats-server` (macOS), or set NATS_URL to a running server.";

export interface NatsServerOptions {
  readonly host: string;
  readonly port: number;
  /** JetStream store directory (nats-server adds a `jetstream/` folder inside). */
  readonly storeDir: string;
  readonly credentials: NatsCredentials;
  readonly log?: (line: string) => void;
  /** Executable to run; `nats-server` from PATH by default. */
  readonly binary?: string;
  /** Membership of a cluster: this server's name, its route port and the routes to its peers. */
  readonly cluster?: ClusterMembership;
}

/** What makes a server one node of a JetStream cluster (see NatsCluster.ts). */
export interface ClusterMembership {
  readonly name: string;
  readonly serverName: string;
  readonly routePort: number;
  /** Every node's route URL (its own included, which nats-server ignores). */
  readonly routes: ReadonlyArray<string>;
}

const clusterArgs = (host: string, cluster: ClusterMembership | undefined): ReadonlyArray<string> =>
  cluster === undefined
    ? []
    : [
        "--server_name",
        cluster.serverName,
        "--cluster_name",
        cluster.name,
        "--cluster",
        `nats://${host}:${cluster.routePort}`,
        "--routes",
        cluster.routes.join(","),
      ];

export interface SpawnedNatsServer {
  readonly url: string;
  readonly process: ChildProcess;
  /** Sends SIGTERM and waits for the process to exit (SIGKILL after 5 s). */
  readonly stop: () => Promise<void>;
  /** Sends SIGKILL (a crash: nothing flushed, no goodbye to peers) and waits for the exit. */
  readonly kill: () => Promise<void>;
}

/** Whether something accepts TCP connections at host:port within `timeoutMs`. */
export const isListening = (host: string, port: number, timeoutMs = 500): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });

/**
 * How long a live nats-server may take to accept connections. It opens its JetStream store first:
 * a store holding 1M watched addresses took 10-17 s to reopen, so a shorter wait failed the start
 * of exactly the deployments that had grown. A server that exits fails the start at once.
 */
const START_WAIT_MS = 120_000;

/**
 * Starts `nats-server -c nats.conf` as a child process and resolves once it
 * accepts connections. Fails with NATS_INSTALL_HINT when the binary is missing.
 */
export const spawnNatsServer = async (options: NatsServerOptions): Promise<SpawnedNatsServer> => {
  await mkdir(options.storeDir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  // nats-server parses a variable's value as configuration, so a password such as
  // "5e..." would read as a number: pass each one as a quoted string.
  for (const user of NATS_USERS) env[passwordVariable(user)] = JSON.stringify(options.credentials[user]);
  const args = [
    "-c",
    NATS_CONF_PATH,
    "-a",
    options.host,
    "-p",
    String(options.port),
    "-sd",
    options.storeDir,
    ...clusterArgs(options.host, options.cluster),
  ];
  const child = spawn(options.binary ?? "nats-server", args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stderr: Array<string> = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 50) stderr.shift();
    for (const line of chunk.split("\n"))
      if (line.includes("[ERR]") || line.includes("[FTL]")) options.log?.(line);
  });
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await exited;
  };
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    const early = await Promise.race([
      spawnError.then((error) => error),
      exited.then(
        (code) => new Error(`nats-server exited with code ${code}: ${stderr.join("").slice(-500)}`),
      ),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
    ]);
    if (early !== undefined) {
      if ((early as NodeJS.ErrnoException).code === "ENOENT") throw new Error(NATS_INSTALL_HINT);
      throw early;
    }
    if (await isListening(options.host, options.port, 200)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `nats-server did not accept connections within ${START_WAIT_MS / 1000} s: ${stderr.join("").slice(-500)}`,
      );
    }
  }
  return { url: `nats://${options.host}:${options.port}`, process: child, stop, kill };
};
