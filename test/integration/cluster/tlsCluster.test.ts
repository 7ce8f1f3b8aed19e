import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/lib/freePort.js";
import { isListening } from "../../../src/nats/NatsServerProcess.js";
import { NATS_USERS, passwordVariable } from "../../../src/nats/NatsUser.js";
import { PROCESS_DEADLINE_MS, REPO_ROOT, runTs } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";

let dir: string;
const servers: Array<ChildProcess> = [];
const urls: Array<string> = [];
const passwords = Object.fromEntries(NATS_USERS.map((user) => [user, `pw-${user}-${Date.now()}`]));

/** The example configs of deploy/nats as an operator runs them, on free ports instead of 4301-4303. */
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-tls-"));
  const made = await new Promise<number | null>((resolve) =>
    spawn("sh", [join(REPO_ROOT, "deploy/nats/make-certs.sh"), "certs"], { cwd: dir, stdio: "ignore" }).once(
      "exit",
      resolve,
    ),
  );
  expect(made).toBe(0);
  const ports = await Promise.all(
    [0, 1, 2].map(async () => ({
      client: await freePort(),
      route: await freePort(),
      monitor: await freePort(),
    })),
  );
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(",");
  const env = { ...process.env };
  for (const user of NATS_USERS) env[passwordVariable(user)] = JSON.stringify(passwords[user]);
  for (const [i, port] of ports.entries()) {
    await mkdir(join(dir, "data"), { recursive: true });
    servers.push(
      spawn(
        "nats-server",
        [
          "-c",
          join(REPO_ROOT, `deploy/nats/n${i + 1}.conf`),
          "-p",
          String(port.client),
          "--cluster",
          `nats://127.0.0.1:${port.route}`,
          "--routes",
          routes,
          "-m",
          String(port.monitor),
        ],
        { cwd: dir, env, stdio: "ignore" },
      ),
    );
    urls.push(`tls://127.0.0.1:${port.client}`);
  }
  await eventually(
    async () => (await Promise.all(ports.map((p) => isListening("127.0.0.1", p.client)))).every(Boolean),
    30_000,
    "three TLS nodes listening",
  );
  // Three nodes on a busy two-core machine may take longer than provisioning's own minute of
  // retries to elect a meta leader that knows all of them; the test waits for that first, so a
  // failure below is provisioning's, not the cluster's start.
  const monitors = ports.map((p) => `http://127.0.0.1:${p.monitor}`);
  await eventually(
    async () => (await Promise.all(monitors.map(leadsAllThree))).some(Boolean),
    150_000,
    "a meta leader that sees all three nodes",
  );
  await writeFile(join(dir, "provision.json"), JSON.stringify({ provision: passwords.provision }));
});

/** Whether this node leads the JetStream meta group with both other nodes current (only the leader lists them). */
const leadsAllThree = async (monitor: string): Promise<boolean> => {
  try {
    const jsz = (await (await fetch(`${monitor}/jsz`)).json()) as {
      meta_cluster?: { leader?: string; cluster_size?: number; replicas?: Array<{ current?: boolean }> };
    };
    const meta = jsz.meta_cluster;
    return (
      meta?.cluster_size === 3 &&
      (meta.replicas ?? []).length === 2 &&
      (meta.replicas ?? []).every((peer) => peer.current === true)
    );
  } catch {
    return false;
  }
};

afterAll(async () => {
  for (const server of servers) server.kill("SIGTERM");
  await Promise.all(
    servers.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.once("exit", r)))),
  );
  await rm(dir, { recursive: true, force: true });
});

describe("the example TLS cluster of deploy/nats", { timeout: PROCESS_DEADLINE_MS }, () => {
  it("behavior: provisioning connects over TLS with a client certificate and makes every stream with 3 replicas", async () => {
    const result = await runTs("src/cli/provision.ts", [], {
      NATS_URL: urls.join(","),
      NATS_CREDENTIALS_FILE: join(dir, "provision.json"),
      NATS_TLS_CA: join(dir, "certs/ca.pem"),
      NATS_TLS_CERT: join(dir, "certs/client.pem"),
      NATS_TLS_KEY: join(dir, "certs/client-key.pem"),
      JETSTREAM_REPLICAS: "3",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("stream CHAIN_EVENTS: created");
    expect(result.stdout).toContain("bucket webhooks: created");
  });

  it("error: a NATS_TLS_* value that is not a PEM file, or a certificate without its key, is named at start", async () => {
    const result = await runTs("src/cli/provision.ts", [], {
      NATS_URL: urls.join(","),
      NATS_TLS_CA: join(dir, "certs/missing.pem"),
      NATS_TLS_CERT: join(dir, "certs/client.pem"),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("NATS_TLS_CERT and NATS_TLS_KEY must be set together");
    expect(result.stderr).toContain(
      `NATS_TLS_CA must name a readable PEM file (got "${join(dir, "certs/missing.pem")}"`,
    );
  });
});
