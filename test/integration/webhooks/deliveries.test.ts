import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminWebhookDeliveries } from "../../../src/contracts/Admin.js";
import { type ActivityContext, activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { runActivityAction } from "../../../src/devnet/activity/runActivity.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

let env: DevnetService;
let call: Caller;
let receiver: Receiver;
let ctx: ActivityContext;
const secrets = new Map<string, string>();

const create = async (body: Record<string, unknown>) => {
  const answer = await call("POST", WEBHOOKS, { name: "test", url: receiver.url, ...body });
  expect(answer.status).toBe(200);
  secrets.set(answer.json.id as string, answer.json.secret as string);
  return answer.json.id as string;
};

let probes = 0;
/** The webhooks notifierCaughtUp made: charged before the CU baseline is read, or after; not the test's. */
const probeIds = new Set<string>();

/**
 * Waits until the notifier's address book holds every address written so far, instead of hoping it
 * does: a webhook of its own for a fresh address, and native transfers to it from the deployer (no
 * test wallet) until one is delivered. The book applies addresses in the order they were written.
 */
const notifierCaughtUp = async () => {
  probes += 1;
  const probe = `0x${(0xca11_0000 + probes).toString(16).padStart(40, "0")}` as const;
  const id = await create({ type: "transactions", addresses: [probe] });
  probeIds.add(id);
  let sentAt = Number.NEGATIVE_INFINITY;
  await eventually(
    async () => {
      if (requestsOf(id).length > 0) return true;
      if (performance.now() - sentAt >= 500) {
        sentAt = performance.now();
        await ctx.client.walletClient.sendTransaction({
          account: roleAddress("deployer"),
          to: probe,
          value: 1n,
          chain: null,
        });
      }
      return false;
    },
    60_000,
    "the notifier's address book to hold the new webhooks' addresses",
  );
};

const requestsOf = (id: string) =>
  receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === id);
const eventsOf = (id: string) =>
  requestsOf(id).flatMap((r) => Object.values(r.json).flatMap((list) => [...list]));

beforeAll(async () => {
  env = await startDevnetService({ webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"] });
  call = callerFor(env.service.baseUrl, env.key);
  receiver = await startReceiver();
  ctx = activityContext(env.devnet.manifest.chains.find((c) => c.chain_id === 1)!);
});

afterAll(async () => {
  await receiver?.stop();
  await env?.stop();
});

describe("webhook deliveries on the devnet", () => {
  it("behavior: each type gets signed deliveries of the right kind; filters apply; CU are charged", async () => {
    const wallets = ctx.wallets.map((w) => w.toLowerCase());
    const usdc = ctx.chain.tokens.USDC!.address.toLowerCase();
    const transactions = await create({ type: "transactions", addresses: wallets });
    const senders = await create({ type: "transactions", addresses: wallets, transaction_type: "sender" });
    const activities = await create({ type: "activities", addresses: wallets });
    const swapsOnly = await create({ type: "activities", addresses: wallets, activity_type: "swap" });
    const balances = await create({ type: "balances", addresses: wallets, chain_ids: [1] });
    const usdcOnly = await create({ type: "balances", addresses: wallets, token_address: usdc });
    const otherChain = await create({ type: "activities", addresses: wallets, chain_ids: [8453] });
    await notifierCaughtUp();
    const cuBefore = ((await call("GET", "/v1/account")).json.cu_used_this_month as number) ?? 0;

    const transfer = (await runActivityAction(ctx, "erc20_transfer"))[0]!;
    const native = (await runActivityAction(ctx, "native_transfer"))[0]!;
    const swap = (await runActivityAction(ctx, "swap_v2")).at(-1)!;
    const hashes = [transfer, native, swap].map((r) => r.transactionHash);

    await eventually(
      async () =>
        hashes.every((h) => eventsOf(transactions).some((e) => e.hash === h)) &&
        eventsOf(swapsOnly).some((e) => e.tx_hash === swap.transactionHash) &&
        // Each webhook has its own queue: the activities one may send the swap's block later.
        eventsOf(activities).some((e) => e.type === "swap") &&
        eventsOf(usdcOnly).length >= 2,
      30_000,
      "deliveries of every webhook",
    );
    for (const [id, secret] of secrets) expect(receiver.unverified(secret, id), id).toEqual([]);

    const first = requestsOf(transactions)[0]!;
    expect(first.headers).toMatchObject({
      "svc-webhook-type": "transactions",
      "svc-webhook-chain-id": "1",
      "svc-webhook-retry-index": "0",
      "content-type": "application/json",
    });
    expect(first.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Object.keys(first.json)).toEqual(["transactions"]);
    expect(eventsOf(senders).every((e) => e.transaction_type === "Sender")).toBe(true);
    expect(eventsOf(activities).map((e) => e.type)).toEqual(
      expect.arrayContaining(["send", "receive", "swap"]),
    );
    expect(eventsOf(swapsOnly).every((e) => e.type === "swap")).toBe(true);
    const changes = eventsOf(balances);
    expect(Object.keys(requestsOf(balances)[0]!.json)).toEqual(["balance_changes"]);
    const usdcIn = changes.find(
      (e) => (e.asset as { token_address: string }).token_address === usdc && e.direction === "in",
    );
    expect(usdcIn).toMatchObject({ transaction_hash: transfer.transactionHash, removed: false });
    expect(BigInt(usdcIn!.amount_after as string) - BigInt(usdcIn!.amount_before as string)).toBe(
      BigInt(usdcIn!.amount_delta as string),
    );
    expect(usdcIn!.price_usd).toBeCloseTo(1, 1);
    expect(
      eventsOf(usdcOnly).every((e) => (e.asset as { token_address: string }).token_address === usdc),
    ).toBe(true);
    expect(requestsOf(otherChain)).toEqual([]);

    // A delivery is charged once however often it is sent (an attempt that timed out at the sender
    // may still have reached the receiver): count each webhook-id's events once. The probe's
    // deliveries are left out: their CU may already be in the baseline.
    const byDelivery = new Map(
      receiver.received
        .filter((r) => !probeIds.has(r.headers["svc-webhook-subscription-id"] as string))
        .map((r) => [r.headers["webhook-id"], r] as const),
    );
    const delivered = [...byDelivery.values()].reduce(
      (sum, r) =>
        sum + Object.values(r.json).reduce((n, list) => n + (Array.isArray(list) ? list.length : 0), 0),
      0,
    );
    let charged = 0;
    await eventually(
      async () => {
        charged = ((await call("GET", "/v1/account")).json.cu_used_this_month as number) - cuBefore;
        return charged >= 2 * delivered;
      },
      30_000,
      "CU of the delivered events",
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}: ${charged} CU charged for ${delivered} events in ${byDelivery.size} deliveries (${receiver.received.length} requests)`,
      );
    });
    const stats = await Effect.runPromise(
      callAdmin(await env.nats.connectAs("admin"), adminWebhookDeliveries, { webhook_ids: [transactions] }),
    );
    expect(stats.webhooks[0]).toMatchObject({
      webhook_id: transactions,
      failed: 0,
      last_status: 200,
      nodes: 1,
    });
    expect(stats.webhooks[0]!.delivered).toBe(requestsOf(transactions).length);
  });

  it("behavior: an inactive webhook gets nothing; reactivated, it gets later events", async () => {
    const wallets = ctx.wallets.map((w) => w.toLowerCase());
    // Every native transfer of the activity wallets involves two of them, so both webhooks match it.
    const id = await create({ type: "transactions", addresses: wallets });
    // The API answers once this process's webhook actor has the change: no wait is needed after it.
    expect((await call("PATCH", `${WEBHOOKS}/${id}`, { active: false })).status).toBe(200);
    // A watcher created after it: once a transfer reaches the watcher, the notifier knew both
    // webhooks (it reads the address lists in the order they were written) when it planned that block.
    const watcher = await create({ type: "transactions", addresses: wallets });
    const hashesOf = (webhook: string) => new Set(eventsOf(webhook).map((e) => e.hash as string));
    let paused: string | undefined;
    for (let attempt = 0; paused === undefined && attempt < 5; attempt++) {
      const hash = (await runActivityAction(ctx, "native_transfer"))[0]!.transactionHash;
      await eventually(async () => hashesOf(watcher).has(hash), 30_000, "the watcher's delivery").then(
        () => {
          paused = hash;
        },
        () => undefined,
      );
    }
    expect(paused, "a transfer planned while the webhook was inactive").toBeDefined();
    expect((await call("PATCH", `${WEBHOOKS}/${id}`, { active: true })).status).toBe(200);
    const resumed = (await runActivityAction(ctx, "native_transfer"))[0]!.transactionHash;
    await eventually(async () => hashesOf(id).has(resumed), 30_000, "resumed");
    // A webhook's deliveries go out in the order they were queued: had the transfer made while it
    // was inactive been queued (then, or held and sent on reactivation), it would have come first.
    expect([...hashesOf(id)]).toEqual([resumed]);
  });
});
