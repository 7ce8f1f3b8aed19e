import { expect } from "vitest";
import { eventually } from "./serviceHarness.js";
import { type chainPublisher, syntheticBlock } from "./syntheticBlocks.js";
import { addressOf, type Caller, WEBHOOKS } from "./webhookEnv.js";
import { startReceiver } from "./webhookReceiver.js";

/** How often a probe block is published while none has been delivered, ms. */
const PROBE_EVERY_MS = 250;

/**
 * A `transactions` webhook of a probe's own, delivered to a receiver of its own: `nextAddress()` adds
 * a fresh address (counting up from `base`) to its list and answers it.
 */
export const startProbeWebhook = async (
  call: Caller,
  probe: { readonly name: string; readonly base: number; readonly chainIds?: ReadonlyArray<number> },
) => {
  const receiver = await startReceiver();
  const created = await call("POST", WEBHOOKS, {
    name: probe.name,
    url: receiver.url,
    type: "transactions",
    addresses: [addressOf(probe.base)],
    ...(probe.chainIds === undefined ? {} : { chain_ids: probe.chainIds }),
  });
  expect(created.status, created.text).toBe(200);
  const id = created.json.id as string;
  let added = 0;
  return {
    nextAddress: async () => {
      added += 1;
      const address = addressOf(probe.base + added);
      const answer = await call("PATCH", `${WEBHOOKS}/${id}/addresses`, { add_addresses: [address] });
      expect(answer.status, answer.text).toBe(200);
      return address;
    },
    /** Whether a delivery names one of these transaction hashes. */
    delivered: (hashes: ReadonlyArray<string>) =>
      receiver.received.some((r) => hashes.some((hash) => r.body.includes(hash))),
    stop: () => receiver.stop(),
  };
};

/**
 * Sends a probe (`send` answers its transaction hash) every `everyMs` until `delivered` says one of
 * those sent was delivered, for 60 s at most.
 */
export const sendUntilDelivered = async (
  send: () => Promise<string>,
  delivered: (hashes: ReadonlyArray<string>) => boolean,
  everyMs: number,
  what: string,
) => {
  const sent: Array<string> = [];
  let sentAt = Number.NEGATIVE_INFINITY;
  await eventually(
    async () => {
      if (sent.length > 0 && delivered(sent)) return true;
      if (performance.now() - sentAt >= everyMs) {
        sentAt = performance.now();
        sent.push(await send());
      }
      return false;
    },
    60_000,
    what,
  );
};

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
  const probe = await startProbeWebhook(call, { name: "notifier barrier", base: 0xba77_0000 });
  return {
    pass: async () => {
      const address = await probe.nextAddress();
      await sendUntilDelivered(
        async () => {
          const block = syntheticBlock(chainId, nextNumber(), address, addressOf(0xba77_ffff));
          await publish.block(block);
          return block.transactions[0].hash;
        },
        probe.delivered,
        PROBE_EVERY_MS,
        "the notifier to deliver a block published after everything before it",
      );
    },
    stop: probe.stop,
  };
};
