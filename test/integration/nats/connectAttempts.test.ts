import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../support/serviceHarness.js";

/**
 * A server that accepts TCP and never says a word, as a NATS node does to a client whose TLS
 * handshake it refused for want of a client certificate. Before, `npm run provision` (and every
 * role) retried such a server in silence for minutes, 20 s per attempt, which looked like a hang.
 */
describe("connecting to a NATS server that never answers", () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  let port = 0;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("behavior: npm run provision says within seconds that it cannot connect, to where, as whom, and that a client certificate may be missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-connect-"));
    const ca = join(dir, "ca.pem");
    // Only checked for a PEM block at start-up; never loaded, since the server never asks for TLS.
    await writeFile(ca, "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
    const servers = `nats://127.0.0.1:${port}`;
    let output = "";
    child = spawn(process.execPath, ["--import", "tsx", "src/cli/provision.ts"], {
      env: { ...process.env, NATS_URL: servers, NATS_USER: "provision", NATS_PASSWORD: "x", NATS_TLS_CA: ca },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const started = Date.now();
    await eventually(
      async () => output.includes("Cannot connect"),
      20_000,
      `a failed attempt reported: ${output}`,
    );
    const warning = output.split("\n").find((line) => line.includes("Cannot connect")) ?? "";
    // One attempt's limit (5 s) plus the process's start-up, not the client's default 20 s.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(warning).toContain(servers);
    expect(warning).toContain("as provision");
    expect(warning).toContain("NATS_TLS_CERT");
  });
});
