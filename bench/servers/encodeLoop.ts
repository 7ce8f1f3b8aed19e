import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Effect } from "effect";
import { publishBlocks } from "../../src/ingest/BlockPublisher.js";
import { encodeBlock } from "../../src/ingest/encodedBlock.js";
import { fetchLiveBlock } from "../../src/ingest/rpc/fetchLiveBlock.js";
import { inboxPrefix } from "../../src/nats/NatsUser.js";
import type { NatsCredentials } from "../../src/nats/natsCredentials.js";
import { directChainRpc } from "../../test/support/chainRpc.js";
import { blockRange } from "../lib/fetchAndDecode.js";

/**
 * Ingest's own work on each block without its follower: the block read as the bare loop reads it
 * (bareLoop.ts: block and receipts through the service's transport, 8 at a time), then encoded as a
 * block message (encodedBlock.ts: written as bytes) and published to CHAIN_EVENTS, each publish
 * acknowledged. Nothing else: no window, lease, checkpoint or status. Over the same blocks as the bare
 * loop, its CPU per block is the least any ingest that publishes this message format can spend, so
 * the bare loop's CPU over it bounds R_ingest's ingest stage from above.
 *
 * Arguments as bareLoop.ts's (`no-traces` implied); the NATS server (a provisioned one of the
 * benchmark's own, not the service's: the API worker would index these blocks) is given as JSON
 * `{ url, credentials }` in BENCH_NATS, and blocks go to it as the ingest user.
 */
const [rpcUrl, untimedFrom, from, to, chainId] = process.argv.slice(2);
const { url, credentials } = JSON.parse(process.env.BENCH_NATS ?? "{}") as {
  url: string;
  credentials: NatsCredentials;
};
const rpc = directChainRpc(rpcUrl!, { chainId: Number(chainId ?? 1), timeoutMs: 60_000 });
const nc = await connect({
  servers: url,
  user: "ingest",
  pass: credentials.ingest,
  inboxPrefix: inboxPrefix("ingest"),
  // As the service's connections (NatsConnections.ts): no stack captured for every publish's ack.
  noAsyncTraces: true,
});
const js = jetstream(nc);
const maxPayload = nc.info?.max_payload ?? 1024 * 1024;

const encodeAndPublish = (numbers: ReadonlyArray<number>) =>
  Effect.runPromise(
    Effect.forEach(
      numbers,
      (number) =>
        Effect.flatMap(fetchLiveBlock(rpc.rpc, { number, traces: false }), (block) =>
          block === undefined
            ? Effect.succeed(0)
            : Effect.as(publishBlocks(js, [encodeBlock(block, maxPayload)]), block.logs.length),
        ),
      { concurrency: 8 },
    ),
  ).then((counts) => counts.reduce((a, b) => a + b, 0));

await encodeAndPublish(blockRange(Number(untimedFrom), Number(from) - 1));
process.stdout.write("timing\n");
const cpuBefore = process.cpuUsage();
const started = performance.now();
const events = await encodeAndPublish(blockRange(Number(from), Number(to)));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, events })}\n`);
await nc.close();
await rpc.close();
