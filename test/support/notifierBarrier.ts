import { expect } from "vitest";
import { eventually } from "./serviceHarness.js";
import { type chainPublisher, syntheticBlock } from "./syntheticBlocks.js";
import { addressOf, type Caller, WEBHOOKS } from "./webhookEnv.js";
import { startReceiver } from "./webhookReceiver.js";

/** How often a probe block is published while none has been delivered, ms. */
const PROBE_EVERY_MS = 250;

/**
 * A way to know that the webhook notifier has caught up, instead of sleeping and hoping it has.
 * The barrier has a webhook of its own (a `transactions` one, which the service must accept with
 * plain http to 127.0.0.1); its blocks are on chain `chainId` and take their numbers from
 * `nextNumber`, the test's own sequence (the notifier prunes what it keeps of blocks far below the
 * newest, so a probe numbered far above the test's blocks would make it forget them). `pass()` adds a fresh address to it and
 * publishes synthetic blocks touching that address until one is delivered. The notifier's address
 * book applies the webhooks' address lists in the order they were written, and the notifier plans blocks in the
 * order they were published, one at a time, so once that delivery arrives:
 *
 * - every address a test wrote before `pass()` is in the address book, and
 * - every block a test published before `pass()` has been planned (its deliveries are queued).
 */
export const startNotifierBarrier = async (
  call: Caller,
  publish: ReturnType<typeof chainPublisher>,
  nextNumber: () => number,
  chainId = 1,
) => {
  const receiver = await startReceiver();
  const created = await call("POST", WEBHOOKS, {
    name: "notifier barrier",
    url: receiver.url,
    type: "transactions",
    addresses: [addressOf(0xba77_0000)],
  });
  expect(created.status, created.text).toBe(200);
  const id = created.json.id as string;
  let passes = 0;
  return {
    pass: async () => {
      passes += 1;
      const address = addressOf(0xba77_0000 + passes);
      const added = await call("PATCH", `${WEBHOOKS}/${id}/addresses`, { add_addresses: [address] });
      expect(added.status, added.text).toBe(200);
      const probes: Array<string> = [];
      let sentAt = Number.NEGATIVE_INFINITY;
      await eventually(
        async () => {
          if (receiver.received.some((r) => probes.some((hash) => r.body.includes(hash)))) return true;
          if (performance.now() - sentAt >= PROBE_EVERY_MS) {
            const block = syntheticBlock(chainId, nextNumber(), address, addressOf(0xba77_ffff));
            probes.push(block.transactions[0].hash);
            sentAt = performance.now();
            await publish.block(block);
          }
          return false;
        },
        60_000,
        "the notifier to deliver a block published after everything before it",
      );
    },
    stop: () => receiver.stop(),
  };
};
