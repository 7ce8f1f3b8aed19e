import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { callAdmin } from "../../src/admin/AdminClient.js";
import {
  adminChainsStatus,
  adminGetUsage,
  adminListKeys,
  adminListWebhooks,
  adminWebhookDeliveries,
} from "../../src/contracts/Admin.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";

const WEBHOOKS = "/beta/evm/subscriptions/webhooks";

/** What the soak load sends to, and as whom. */
export interface SoakTarget {
  readonly url: string;
  readonly keys: ReadonlyArray<string>;
  readonly chain: ManifestChain;
  /** Where the webhooks the load creates point (a local receiver). */
  readonly receiverUrl: string;
  /** An admin connection, for the operator calls in the mix. */
  readonly admin: NatsConnection;
  /** Webhooks that live through the run (their delivery figures are read by operator calls). */
  readonly lastingWebhooks: ReadonlyArray<string>;
  /** The ERC-20 tokens the 1,200-token paging wallet holds. */
  readonly pagingTokens: ReadonlyArray<string>;
}

const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)]!;

/** One closed-loop client: its key, its place in the paging wallet and its webhook's life cycle. */
export interface Client {
  readonly key: string;
  pagingCursor: string | undefined;
  webhook: { id: string; step: number } | undefined;
}

export type Send = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; json: unknown }>;

/**
 * The mixed load of the soak benchmark, by weight: balances of the devnet's
 * named wallets (mostly cached), pages of the 1,200-token wallet, balances of
 * never-seen random wallets (cold, and each a new cache key), single-token reads
 * (known and random tokens, and any of the 1,200-token wallet's tokens, each of
 * which makes that whole wallet a new cache key), historical prices at random offsets, a webhook's
 * life cycle (create, add addresses, read, list, delete), operator calls over
 * NATS, and the cheap routes.
 */
export const kinds = (target: SoakTarget) => {
  const chain = target.chain;
  const named = Object.values(chain.wallets);
  const tokens = Object.values(chain.tokens).map((t) => t.address);
  return {
    cached: { weight: 25, run: (send: Send) => send("GET", `/v1/evm/balances/${pick(named)}`) },
    paging: {
      weight: 10,
      run: async (send: Send, client: Client) => {
        const offset = client.pagingCursor === undefined ? "" : `&offset=${client.pagingCursor}`;
        const answer = await send(
          "GET",
          `/v1/evm/balances/${chain.wallets.paging}?chain_ids=1&limit=100${offset}`,
        );
        client.pagingCursor = (answer.json as { next_offset?: string }).next_offset;
        return answer;
      },
    },
    cold: { weight: 20, run: (send: Send) => send("GET", `/v1/evm/balances/${randomAddress()}`) },
    token: {
      weight: 10,
      run: (send: Send) => {
        const wallet = Math.random() < 0.5 ? pick(named) : randomAddress();
        const token = Math.random() < 0.7 ? pick(tokens) : randomAddress();
        return send("GET", `/v1/evm/balances/${wallet}/token/${token}?chain_ids=1`);
      },
    },
    // Hostile: each of its tokens makes the whole 1,200-token wallet a new cache key (per block).
    pagingToken: {
      weight: 3,
      run: (send: Send) =>
        send(
          "GET",
          `/v1/evm/balances/${chain.wallets.paging}/token/${pick(target.pagingTokens)}?chain_ids=1`,
        ),
    },
    historical: {
      weight: 10,
      run: (send: Send) => {
        const hours = [1 + Math.floor(Math.random() * 24), 24 + Math.floor(Math.random() * 720)];
        return send("GET", `/v1/evm/balances/${pick(named)}?historical_prices=${hours.join(",")}`);
      },
    },
    webhooks: { weight: 10, run: webhookStep(target) },
    admin: { weight: 5, run: () => adminCall(target) },
    light: {
      weight: 10,
      run: (send: Send) => send("GET", pick(["/v1/account", "/v1/evm/supported-chains", "/healthz"])),
    },
  } as const;
};

/** The next step of the client's webhook: create, add 50 addresses, read, list, delete, again. */
const webhookStep = (target: SoakTarget) => async (send: Send, client: Client) => {
  const hook = client.webhook;
  if (hook === undefined) {
    const answer = await send("POST", WEBHOOKS, {
      name: `soak-${randomBytes(4).toString("hex")}`,
      url: `${target.receiverUrl}/${randomBytes(6).toString("hex")}`,
      type: pick(["transactions", "activities", "balances"]),
      addresses: [target.chain.wallets.activity_a!, ...Array.from({ length: 20 }, randomAddress)],
    });
    const id = (answer.json as { id?: string }).id;
    if (id !== undefined) client.webhook = { id, step: 0 };
    return answer;
  }
  hook.step += 1;
  const path = `${WEBHOOKS}/${hook.id}`;
  if (hook.step === 1)
    return send("PATCH", `${path}/addresses`, { add_addresses: Array.from({ length: 50 }, randomAddress) });
  if (hook.step === 2) return send("GET", path);
  if (hook.step === 3) return send("GET", `${path}/addresses?limit=100`);
  if (hook.step === 4) return send("GET", WEBHOOKS);
  client.webhook = undefined;
  return send("DELETE", path);
};

const adminCall = async (target: SoakTarget) => {
  const nc = target.admin;
  const call: () => Effect.Effect<unknown, unknown> = pick([
    () => callAdmin(nc, adminListWebhooks, {}),
    () => callAdmin(nc, adminListKeys, {}),
    () => callAdmin(nc, adminChainsStatus, {}),
    () => callAdmin(nc, adminGetUsage, {}),
    () => callAdmin(nc, adminWebhookDeliveries, { webhook_ids: [...target.lastingWebhooks] }),
  ]);
  const ok = await Effect.runPromise(
    call().pipe(
      Effect.as(true),
      Effect.catchAll(() => Effect.succeed(false)),
    ),
  );
  return { status: ok ? 200 : 500, json: {} };
};
