import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Logger, Option } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveBroker } from "../../../src/nats/Broker.js";
import { isListening } from "../../../src/nats/NatsServerProcess.js";

/*
 * Which NATS server a start without NATS_URL uses, against whatever listens on 127.0.0.1:4222:
 * the machine's own nats-server where one runs, else a plain listener of this test's.
 */

let listener: Server | undefined;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "broker-choice-"));
  if (await isListening("127.0.0.1", 4222)) return;
  listener = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener!.listen(4222, "127.0.0.1", resolve));
});

afterAll(async () => {
  await new Promise((resolve) => (listener === undefined ? resolve(undefined) : listener.close(resolve)));
  await rm(dataDir, { recursive: true, force: true });
});

const settings = () => ({
  natsUrl: Option.none(),
  natsUser: Option.none(),
  natsPassword: Option.none(),
  natsProvisionPassword: Option.none(),
  natsCredentialsFile: Option.none(),
  natsTls: undefined,
  dataDir,
});

/** Resolves the broker as the service (`spawnIfAbsent`) or a tool would, collecting the log lines. */
const resolvedAs = async (spawnIfAbsent: boolean) => {
  const lines: Array<string> = [];
  const logger = Logger.make(({ message }) => {
    lines.push(Array.isArray(message) ? message.join(" ") : String(message));
  });
  const broker = await Effect.runPromise(
    Effect.scoped(resolveBroker(settings(), { spawnIfAbsent })).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
    ),
  );
  return { broker, lines };
};

describe("the NATS server a start without NATS_URL uses", () => {
  it("behavior: the service says it uses the server already on 127.0.0.1:4222, and how it connects; the tools keep their output to themselves", async () => {
    const service = await resolvedAs(true);
    expect(service.broker.servers).toBe("nats://127.0.0.1:4222");
    expect(service.lines).toEqual([
      "using the NATS server already running at nats://127.0.0.1:4222 (no credentials under DATA_DIR: connecting without a password); set NATS_URL to choose another",
    ]);
    expect((await resolvedAs(false)).lines).toEqual([]);
  });
});
