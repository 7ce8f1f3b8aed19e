import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConnectionOptions, connect, type NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { freePort } from "../../src/lib/freePort.js";
import type { BrokerAddress } from "../../src/nats/NatsConnections.js";
import { spawnNatsServer } from "../../src/nats/NatsServerProcess.js";
import { inboxPrefix, NATS_USERS, type NatsUser } from "../../src/nats/NatsUser.js";
import type { NatsCredentials } from "../../src/nats/natsCredentials.js";
import { provisionJetStream } from "../../src/nats/provisionJetStream.js";

/** A nats-server of our own for one test file: free port, temporary store, per-role passwords. */
export interface TestNats {
  readonly url: string;
  /** The JetStream store directory (what the broker keeps on disk). */
  readonly storeDir: string;
  readonly credentials: NatsCredentials;
  readonly broker: BrokerAddress;
  /** Stops nats-server and starts it again on the same port and store (a broker restart). */
  readonly restart: (downMs?: number) => Promise<void>;
  /**
   * Connects as one of nats.conf's users, with that user's inbox prefix (as the service does);
   * `options` add to or replace the client's (another address to reach the server by, say).
   */
  readonly connectAs: (user: NatsUser, options?: Partial<ConnectionOptions>) => Promise<NatsConnection>;
  readonly stop: () => Promise<void>;
}

/**
 * Starts the server with the repository's nats.conf. Unless `provision` is false,
 * the streams and buckets are then provisioned as the service does (as the
 * `provision` user), so tests may bind to them at once.
 */
export const startTestNats = async (setup: { readonly provision?: boolean } = {}): Promise<TestNats> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-nats-"));
  const credentials = Object.fromEntries(
    NATS_USERS.map((u) => [u, randomBytes(12).toString("hex")]),
  ) as NatsCredentials;
  const options = { host: "127.0.0.1", port: await freePort(), storeDir: dir, credentials };
  let server = await spawnNatsServer(options);
  const opened: Array<NatsConnection> = [];
  if (setup.provision !== false) {
    const nc = await connect({
      servers: server.url,
      user: "provision",
      pass: credentials.provision,
      inboxPrefix: inboxPrefix("provision"),
    });
    await Effect.runPromise(provisionJetStream(nc));
    await nc.close();
  }
  return {
    url: server.url,
    storeDir: dir,
    credentials,
    broker: {
      servers: server.url,
      credentials: (user) => ({ user, pass: credentials[user] }),
      canProvision: true,
    },
    restart: async (downMs = 0) => {
      await server.stop();
      await new Promise((r) => setTimeout(r, downMs));
      server = await spawnNatsServer(options);
    },
    connectAs: async (user, options = {}) => {
      const nc = await connect({
        servers: server.url,
        user,
        pass: credentials[user],
        inboxPrefix: inboxPrefix(user),
        ...options,
      });
      opened.push(nc);
      return nc;
    },
    stop: async () => {
      await Promise.allSettled(opened.map((nc) => nc.close()));
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
};
