import { deflateRawSync } from "node:zlib";
import { jetstream } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNotifierBarrier } from "../../support/notifierBarrier.js";
import { eventually } from "../../support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../../support/syntheticBlocks.js";
import {
  addressOf,
  type Caller,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * Chain events that no consumer can apply (wrong shape, not JSON, bad deflate or brotli, absurd part headers) are
 * skipped by the index and dropped by the notifier, with an error logged: the events after them are
 * indexed and delivered as usual. Before, one such message stopped the index for good.
 */

let env: WebhookEnv;
let call: Caller;
let receiver: Receiver;
let nextBlock = 7_000_000;

beforeAll(async () => {
  env = await startWebhookEnv({ webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"] });
  call = await env.as("poison");
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.stop();
  await env?.stop();
});

/** chain 1's block as this node's index has applied it (from /healthz, whatever its status). */
const indexedBlock = async (): Promise<number> => {
  const health = (await (await fetch(`${env.service.baseUrl}/healthz`)).json()) as {
    chains?: Array<{ chain_id: number; indexed_block: number | null }>;
  };
  return health.chains?.find((c) => c.chain_id === 1)?.indexed_block ?? -1;
};

describe("chain events no consumer can apply", () => {
  it("error: are skipped and dropped; the index and the deliveries go on with the next block", async () => {
    const wallet = addressOf(0x7000);
    const created = await call("POST", WEBHOOKS, {
      name: "poison",
      url: receiver.url,
      type: "transactions",
      addresses: [wallet],
    });
    expect(created.status).toBe(200);
    const ingest = await env.nats.connectAs("ingest");
    const publish = chainPublisher(ingest);
    const barrier = await startNotifierBarrier(call, publish, () => nextBlock++);
    await barrier.pass();
    await barrier.stop();

    const js = jetstream(ingest);
    const header = (entries: Record<string, string>) => {
      const h = natsHeaders();
      for (const [name, value] of Object.entries(entries)) h.set(name, value);
      return h;
    };
    const poison: Array<[string, Uint8Array | string, ReturnType<typeof natsHeaders> | undefined]> = [
      ["shape", JSON.stringify({ test: true }), undefined],
      [
        "missing logs",
        JSON.stringify({ ...syntheticBlock(1, nextBlock++, wallet, addressOf(1)), logs: null }),
        undefined,
      ],
      ["not json", "{{{", undefined],
      ["bad deflate", new Uint8Array([1, 2, 3, 4, 5]), header({ "Content-Encoding": "deflate" })],
      ["bad brotli", new Uint8Array([1, 2, 3, 4, 5]), header({ "Content-Encoding": "br" })],
      [
        "absurd parts",
        deflateRawSync(Buffer.from("{}")),
        header({ "Svc-Parts": "1000000", "Svc-Part": "0" }),
      ],
    ];
    for (const [name, data, headers] of poison)
      await js.publish("chain.1.block", data, {
        msgID: `poison:${name}`,
        ...(headers === undefined ? {} : { headers }),
      });

    const good = syntheticBlock(1, nextBlock++, wallet, addressOf(1));
    await publish.block(good);
    await eventually(
      async () => (await indexedBlock()) >= good.number,
      30_000,
      "the block after the poison indexed",
    );
    await eventually(
      async () => receiver.events().some((e) => JSON.stringify(e).includes(good.transactions[0].hash)),
      30_000,
      "the block after the poison delivered",
    );
    expect(receiver.unverified(created.json.secret as string)).toEqual([]);
  });
});
