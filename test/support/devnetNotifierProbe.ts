import { expect } from "vitest";
import type { ChainClient } from "../../src/devnet/ChainClient.js";
import { roleAddress } from "../../src/devnet/devAccounts.js";
import { sendUntilDelivered, startProbeWebhook } from "./notifierBarrier.js";
import { addressOf, type Caller, WEBHOOKS } from "./webhookEnv.js";
import type { Receiver } from "./webhookReceiver.js";

/** How often a probe transfer is sent while none has been delivered, ms. */
const PROBE_EVERY_MS = 500;

/** Sends native transfers from the deployer to `to` until `delivered` says one of them (by hash) was. */
const transferUntilDelivered = (
  client: ChainClient,
  to: string,
  delivered: (hashes: ReadonlyArray<string>) => boolean,
) =>
  sendUntilDelivered(
    () =>
      client.walletClient.sendTransaction({
        account: roleAddress("deployer"),
        to: to as `0x${string}`,
        value: 1n,
        chain: null,
      }),
    delivered,
    PROBE_EVERY_MS,
    "the notifier to deliver a transfer mined after everything before it",
  );

/**
 * notifierBarrier.ts on the devnet, where blocks are mined rather than published: a `transactions`
 * webhook of its own (on the devnet chain of `client`), to which `pass()` adds a fresh address and
 * sends native transfers from the deployer until one is delivered. The address book applies lists
 * in the order they were written and the notifier plans blocks in chain order, so once that
 * delivery arrives every webhook written before `pass()` is in the book and every block mined
 * before it has been planned. The transfers name no watched wallet and move no pool: a block
 * planned while one is mined reads what it would have read without it.
 *
 * Tests that assert the block an alert names pass the probe before each transaction that moves what
 * the alert reads. anvil answers a read pinned to its head block from its live state, and while it
 * mines the next block that state already holds the next block's changes (it releases the state
 * before it publishes the block): a notifier reading the head at that moment would see the change
 * one block early. A node that serves a block's state from that block's own root never does this.
 */
export const startDevnetNotifierProbe = async (call: Caller, client: ChainClient) => {
  const probe = await startProbeWebhook(call, {
    name: "notifier probe",
    base: 0xa1e7_0000,
    chainIds: [client.chainId],
  });
  return {
    pass: async () => transferUntilDelivered(client, await probe.nextAddress(), probe.delivered),
    stop: probe.stop,
  };
};

/**
 * One pass of the probe above without a receiver of its own: each `caughtUp()` creates a
 * `transactions` webhook for a fresh address, delivered to `receiver`, and waits as `pass()` does.
 */
export const devnetNotifierProbe = (call: Caller, receiver: Receiver, client: ChainClient) => {
  let probes = 0;
  return {
    caughtUp: async () => {
      probes += 1;
      const probe = addressOf(0xa1e8_0000 + probes);
      const created = await call("POST", WEBHOOKS, {
        name: "notifier probe",
        url: receiver.url,
        type: "transactions",
        addresses: [probe],
        chain_ids: [client.chainId],
      });
      expect(created.status, created.text).toBe(200);
      const id = created.json.id as string;
      await transferUntilDelivered(client, probe, () =>
        receiver.received.some((r) => r.headers["svc-webhook-subscription-id"] === id),
      );
    },
  };
};
