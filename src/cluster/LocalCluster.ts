import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { freePort } from "../lib/freePort.js";
import { type NatsCluster, startNatsCluster } from "../nats/NatsCluster.js";
import { inboxPrefix, NATS_USERS, type NatsUser } from "../nats/NatsUser.js";
import type { NatsCredentials } from "../nats/natsCredentials.js";
import { provisionWhenReady } from "../nats/provisionJetStream.js";
import { type ServiceProcess, startServiceProcess } from "./ServiceProcess.js";

/** One gateway+api process of the local cluster. */
export interface ApiNode {
  readonly name: string;
  readonly port: number;
  /** Its HTTP base URL. */
  readonly url: string;
  readonly process: ServiceProcess;
}

export interface LocalCluster {
  readonly nats: NatsCluster;
  readonly credentials: NatsCredentials;
  readonly apis: ReadonlyArray<ApiNode>;
  readonly ingest: ReadonlyArray<ServiceProcess>;
  /** Environment for operator tools against this cluster (admin CLI, TUI, provisioning). */
  readonly operatorEnv: NodeJS.ProcessEnv;
  /** Connects to the cluster (every node) as one of nats.conf's users. */
  readonly connectAs: (user: NatsUser) => Promise<NatsConnection>;
  /** Resolves once every gateway answers /healthz with 200 (every role live, indexes caught up). */
  readonly ready: (timeoutMs: number) => Promise<void>;
  /** Stops every role process, then the nats-servers. */
  readonly stop: () => Promise<void>;
}

export interface LocalClusterOptions {
  /** Where the nats-server stores, the processes' data directories and the credentials files go. */
  readonly dir: string;
  /** The chains file every api and ingest process serves. */
  readonly chainsConfig: string;
  /** gateway+api processes (default 2). */
  readonly apiProcesses?: number;
  /** ingest processes (default 1). */
  readonly ingestProcesses?: number;
  /** Gateway ports, in order; free ports when absent. */
  readonly ports?: ReadonlyArray<number>;
  /** Copies of every stream and bucket (default 3: any one node may fail). */
  readonly replicas?: number;
  /** More environment for every role process (e.g. webhook settings). */
  readonly env?: NodeJS.ProcessEnv;
  /** Hears every process's output and the nats-servers' errors, one prefixed line at a time. */
  readonly log?: (line: string) => void;
}

/** Writes a credentials file holding only the given users' passwords (mode 600). */
const credentialsFile = async (
  dir: string,
  name: string,
  credentials: NatsCredentials,
  users: ReadonlyArray<NatsUser>,
) => {
  const path = join(dir, `${name}.credentials.json`);
  const subset = Object.fromEntries(users.map((user) => [user, credentials[user]]));
  await writeFile(path, JSON.stringify(subset, null, 2), { mode: 0o600 });
  return path;
};

const waitHealthy = async (url: string, process: ServiceProcess, deadline: number) => {
  for (;;) {
    const status = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline || !process.running())
      throw new Error(
        `${url}/healthz did not answer 200 in time (last: ${status}; process ${process.state()}): ${process.output().slice(-2_000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

/**
 * The scale-out topology on one machine: a three-node NATS cluster with
 * replicated streams, gateway+api processes on their own ports and ingest
 * processes, every role under its own NATS user (credentials files holding
 * only that process's users) and its own data directory. Provisioning is done
 * here, as the operator would with `npm run provision`, so no role process
 * holds the `provision` password. `npm run cluster` and the fault tests use it.
 */
export const startLocalCluster = async (options: LocalClusterOptions): Promise<LocalCluster> => {
  const replicas = options.replicas ?? 3;
  const credentials = Object.fromEntries(
    NATS_USERS.map((user) => [user, randomBytes(18).toString("base64url")]),
  ) as NatsCredentials;
  await mkdir(options.dir, { recursive: true });
  const nats = await startNatsCluster({
    dir: join(options.dir, "nats"),
    credentials,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const connectAs = (user: NatsUser) =>
    connect({
      servers: nats.servers.split(","),
      user,
      pass: credentials[user],
      inboxPrefix: inboxPrefix(user),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
  const started: Array<ServiceProcess> = [];
  try {
    const provisioner = await connectAs("provision");
    await Effect.runPromise(provisionWhenReady(provisioner, { replicas }));
    await provisioner.close();

    const apiCredentials = await credentialsFile(options.dir, "gateway-api", credentials, ["gateway", "api"]);
    const ingestCredentials = await credentialsFile(options.dir, "ingest", credentials, ["ingest"]);
    const operatorCredentials = await credentialsFile(options.dir, "operator", credentials, [
      "admin",
      "provision",
    ]);
    const common: NodeJS.ProcessEnv = {
      NATS_URL: nats.servers,
      CHAINS_CONFIG: options.chainsConfig,
      JETSTREAM_REPLICAS: String(replicas),
      // API processes with their own data directories must share the key that seals webhook secrets.
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      LOG_LEVEL: "info",
      ...options.env,
    };
    const prefixed = (name: string) =>
      options.log === undefined ? undefined : (line: string) => options.log?.(`${name}: ${line}`);
    const apis: Array<ApiNode> = [];
    for (let i = 0; i < (options.apiProcesses ?? 2); i++) {
      const name = `api${i + 1}`;
      const port = options.ports?.[i] ?? (await freePort());
      const dataDir = join(options.dir, name);
      await mkdir(dataDir, { recursive: true });
      const process = startServiceProcess(
        "gateway,api",
        {
          ...common,
          NATS_CREDENTIALS_FILE: apiCredentials,
          DATA_DIR: dataDir,
          PORT: String(port),
          PUBLIC_URL: `http://127.0.0.1:${port}`,
        },
        prefixed(name),
      );
      started.push(process);
      apis.push({ name, port, url: `http://127.0.0.1:${port}`, process });
    }
    const ingest: Array<ServiceProcess> = [];
    for (let i = 0; i < (options.ingestProcesses ?? 1); i++) {
      const name = `ingest${i + 1}`;
      const dataDir = join(options.dir, name);
      await mkdir(dataDir, { recursive: true });
      const process = startServiceProcess(
        "ingest",
        { ...common, NATS_CREDENTIALS_FILE: ingestCredentials, DATA_DIR: dataDir },
        prefixed(name),
      );
      started.push(process);
      ingest.push(process);
    }
    return {
      nats,
      credentials,
      apis,
      ingest,
      operatorEnv: { NATS_URL: nats.servers, NATS_CREDENTIALS_FILE: operatorCredentials },
      connectAs,
      ready: async (timeoutMs) => {
        const deadline = Date.now() + timeoutMs;
        await Promise.all(apis.map((api) => waitHealthy(api.url, api.process, deadline)));
      },
      stop: async () => {
        await Promise.all(started.map((process) => process.stop()));
        await nats.stop();
      },
    };
  } catch (error) {
    await Promise.all(started.map((process) => process.stop()));
    await nats.stop();
    throw error;
  }
};
