import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { freePort } from "../../src/lib/freePort.js";
import { isListening } from "../../src/nats/NatsServerProcess.js";

/**
 * A nats-server with JetStream and no users, for tests of NATS helpers that do
 * not depend on the roles' permissions: free port, temporary store.
 */
export const startBareNats = async (): Promise<{ nc: NatsConnection; stop: () => Promise<void> }> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bare-nats-"));
  const port = await freePort();
  const child = spawn("nats-server", ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", dir], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 10_000;
  while (!(await isListening("127.0.0.1", port, 200))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("nats-server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  const nc = await connect({ servers: `127.0.0.1:${port}` });
  return {
    nc,
    stop: async () => {
      await nc.close();
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
};
