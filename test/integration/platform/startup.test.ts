import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Exit } from "effect";
import { Level } from "level";
import { describe, expect, it } from "vitest";
import { freePort } from "../../../src/lib/freePort.js";
import { isListening, NATS_INSTALL_HINT, spawnNatsServer } from "../../../src/nats/NatsServerProcess.js";
import { resetDerivedState } from "../../../src/roles/resetDerivedState.js";
import { levelPath } from "../../../src/storage/dataDirDb.js";
import { DataDirUnavailable } from "../../../src/storage/Level.js";
import { startTestNats } from "../../support/natsServer.js";
import { PROCESS_DEADLINE_MS, runTs } from "../../support/runTs.js";
import { writeChainsFile } from "../../support/serviceHarness.js";

const start = (env: NodeJS.ProcessEnv, args: ReadonlyArray<string> = []) => runTs("src/main.ts", args, env);

describe("start-up", { timeout: PROCESS_DEADLINE_MS + 30_000 }, () => {
  it("error: a bad PORT stops start-up with one sentence naming the variable", async () => {
    const result = await start({ PORT: "eighty" });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('PORT must be an integer from 1 to 65535 (got "eighty").');
  });

  it("error: every bad variable is named, each on its own line", async () => {
    const result = await start({ PORT: "70000", LOG_LEVEL: "loud", NATS_URL: "http://x y" });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      'PORT must be an integer from 1 to 65535 (got "70000").',
      'NATS_URL must be a comma-separated list of nats://host:port URLs (got "http://x y").',
      'LOG_LEVEL must be one of trace, debug, info, warning, error, fatal, none (got "loud").',
    ]);
  });

  it("error: an unknown role in --roles is refused", async () => {
    const result = await start({}, ["--roles", "gateway,sorcerer"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '--roles must be a comma-separated list of roles from gateway, api, ingest (got "gateway,sorcerer").',
    );
  });

  it("error: a gateway whose PORT another server holds exits 1 saying so, even when that server never answers", async () => {
    const nats = await startTestNats();
    const dir = await mkdtemp(join(tmpdir(), "svc-port-taken-"));
    // Takes every request and never answers: the gateway's own readiness probe reaches it too.
    const squatter = createServer(() => undefined);
    const port = await freePort();
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    try {
      const result = await start(
        {
          NATS_URL: nats.url,
          NATS_USER: "gateway",
          NATS_PASSWORD: nats.credentials.gateway,
          PORT: String(port),
          DATA_DIR: dir,
          LOG_LEVEL: "warning",
        },
        ["--roles", "gateway"],
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `Port ${port} is already in use by another process: stop it, or set PORT to a free port.`,
      );
    } finally {
      squatter.closeAllConnections();
      squatter.close();
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("error: a DATA_DIR whose database another process holds stops start-up with one sentence", async () => {
    const nats = await startTestNats();
    const dir = await mkdtemp(join(tmpdir(), "svc-locked-"));
    // The other process: this test holds the LevelDB lock of the data directory.
    const holder = new Level(levelPath(dir));
    await holder.open();
    try {
      const chainsConfig = await writeChainsFile(dir, [
        { chainId: 1, name: "ethereum", rpcUrl: `http://127.0.0.1:${await freePort()}` },
      ]);
      const result = await start(
        {
          NATS_URL: nats.url,
          NATS_USER: "ingest",
          NATS_PASSWORD: nats.credentials.ingest,
          CHAINS_CONFIG: chainsConfig,
          DATA_DIR: dir,
          LOG_LEVEL: "warning",
        },
        ["--roles", "ingest"],
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `The database at ${levelPath(dir)} is in use by another process (its LevelDB lock is held): stop that process or give this one another DATA_DIR.`,
      );
    } finally {
      await holder.close();
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("error: on the devnet, whose derived state is reset first, a DATA_DIR another process holds also stops start-up with one sentence", async () => {
    const nats = await startTestNats();
    const dir = await mkdtemp(join(tmpdir(), "svc-locked-devnet-"));
    const holder = new Level(levelPath(dir));
    await holder.open();
    try {
      const exit = await Effect.runPromiseExit(resetDerivedState(await nats.connectAs("provision"), dir));
      expect(exit).toEqual(
        Exit.fail(
          new DataDirUnavailable({
            message: `The database at ${levelPath(dir)} is in use by another process (its LevelDB lock is held): stop that process or give this one another DATA_DIR.`,
          }),
        ),
      );
    } finally {
      await holder.close();
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("error: a missing nats-server binary fails with the install command", async () => {
    await expect(
      spawnNatsServer({
        host: "127.0.0.1",
        port: 1,
        storeDir: "/tmp/svc-no-nats",
        binary: "nats-server-that-does-not-exist",
        credentials: { gateway: "a", api: "b", ingest: "c", admin: "d", provision: "e" },
      }),
    ).rejects.toThrow(NATS_INSTALL_HINT);
    expect(NATS_INSTALL_HINT).toContain("apt-get install nats-server");
  });

  it("behavior: a nats-server that takes longer than 10 s to open its store (a grown one) is waited for; one that exits fails at once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-slow-nats-"));
    // Stands for a server reopening a store of 1M watched addresses: silent for 11 s, then serving.
    const slow = join(dir, "slow-nats-server");
    await writeFile(slow, '#!/bin/sh\nsleep 11\nexec nats-server "$@"\n', { mode: 0o755 });
    const credentials = { gateway: "a", api: "b", ingest: "c", admin: "d", provision: "e" };
    try {
      const server = await spawnNatsServer({
        host: "127.0.0.1",
        port: await freePort(),
        storeDir: join(dir, "store"),
        binary: slow,
        credentials,
      });
      expect(await isListening("127.0.0.1", Number(server.url.split(":")[2]))).toBe(true);
      await server.stop();

      const failing = join(dir, "failing-nats-server");
      await writeFile(failing, "#!/bin/sh\necho 'store is corrupt' >&2\nexit 3\n", { mode: 0o755 });
      const started = Date.now();
      await expect(
        spawnNatsServer({
          host: "127.0.0.1",
          port: await freePort(),
          storeDir: join(dir, "store2"),
          binary: failing,
          credentials,
        }),
      ).rejects.toThrow(/exited with code 3: store is corrupt/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
