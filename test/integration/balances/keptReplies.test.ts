import { headers as natsHeaders } from "@nats-io/transport-node";
import { Effect } from "effect";
import { createPublicClient, type Hex, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { RateLimit } from "../../../src/domain/ApiKey.js";
import { adminBuckets } from "../../support/anvilService.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { devnetWallet } from "../../support/devnetWallet.js";
import { eventually } from "../../support/serviceHarness.js";

/**
 * A repeated balances request is answered from the reply kept for it (no input decoding, no
 * handler), after the same authentication, rate limit and quota, with the same metering, and
 * never with balances older than the index.
 */
interface Body {
  wallet_address: string;
  balances: Array<{ chain_id: number; address: string; amount: string }>;
  request_time: string;
  response_time: string;
}

let env: DevnetService;
let chain: ManifestChain;

const keyOf = async (team: string, rateLimit: RateLimit | null = null) =>
  (await Effect.runPromise(createKey(await adminBuckets(await env.nats.connectAs("admin")), team, rateLimit)))
    .key;
const get = (path: string, key = env.key) =>
  fetch(`${env.service.baseUrl}${path}`, { headers: { "x-svc-api-key": key } });
const indexedBlock = async () => {
  const health = (await (await fetch(`${env.service.baseUrl}/healthz`)).json()) as {
    chains: Array<{ chain_id: number; indexed_block?: number | null }>;
  };
  return health.chains.find((c) => c.chain_id === 1)?.indexed_block ?? -1;
};

beforeAll(async () => {
  env = await startDevnetService();
  chain = env.devnet.manifest.chains.find((c) => c.chain_id === 1)!;
});

afterAll(async () => {
  await env?.stop();
});

describe("kept balances replies", () => {
  it("behavior: a repeated request gets the same balances with its own times, and every one is charged", async () => {
    const key = await keyOf("replayed");
    const path = `/v1/evm/balances/${chain.wallets.whale}?chain_ids=1`;
    const bodies: Array<Body> = [];
    for (let i = 0; i < 5; i++) {
      const res = await get(path, key);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-compute-units")).toBe("1");
      bodies.push((await res.json()) as Body);
    }
    for (const body of bodies) {
      expect(body.wallet_address).toBe(chain.wallets.whale!.toLowerCase());
      expect(body.balances).toEqual(bodies[0]!.balances);
      expect(Date.parse(body.response_time)).toBeGreaterThanOrEqual(Date.parse(body.request_time));
    }
    const times = bodies.map((b) => Date.parse(b.request_time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBeGreaterThan(times[0]!);
    // 5 requests at 1 CU each reach the team's usage, replies kept or not.
    await eventually(
      async () =>
        ((await (await get("/v1/account", key)).json()) as { cu_used_this_month: number })
          .cu_used_this_month === 5,
      30_000,
      "5 CU used",
    );
  });

  it("behavior: right after a new block is indexed, the same request answers the new balance", async () => {
    const wallet = devnetWallet(chain, env.devnet.manifest.accounts[0]!.private_key);
    const path = `/v1/evm/balances/${chain.wallets.empty}?chain_ids=1&filters=native`;
    const amount = async () => {
      const body = (await (await get(path)).json()) as Body;
      return BigInt(body.balances.find((b) => b.address === "native")?.amount ?? "0");
    };
    for (let i = 0; i < 3; i++) {
      const before = await amount();
      expect(await amount()).toBe(before); // kept
      const hash = await wallet.sendTransaction({
        to: chain.wallets.empty as Hex,
        value: 1_000n + BigInt(i),
      });
      const receipt = await createPublicClient({ transport: http(chain.rpc_url) }).waitForTransactionReceipt({
        hash,
      });
      await eventually(async () => (await indexedBlock()) >= Number(receipt.blockNumber), 30_000, "indexed");
      // One request, no polling: the kept reply of the block before is not served.
      expect(await amount()).toBe(before + 1_000n + BigInt(i));
    }
  });

  it("error: a request differing from a kept one only in a bad value is still refused with the same 400", async () => {
    const wallet = chain.wallets.whale!;
    const kept = `/v1/evm/balances/${wallet}?chain_ids=1&limit=5`;
    expect((await get(kept)).status).toBe(200);
    expect((await get(kept)).status).toBe(200);
    for (const [query, code] of [
      ["chain_ids=1&limit=ten", "INVALID_LIMIT"],
      ["chain_ids=ethereum&limit=5", "INVALID_CHAIN_IDS"],
      ["chain_ids=1&limit=5&filters=erc721", "INVALID_FILTERS"],
      ["chain_ids=1&limit=5&offset=forged.cursor", "INVALID_OFFSET"],
    ] as const) {
      const res = await get(`/v1/evm/balances/${wallet}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      expect(await res.json(), query).toMatchObject({ code });
    }
    // Over NATS, a number where the kept request had the string "1" is refused, not replayed.
    const nc = await env.nats.connectAs("gateway");
    const h = natsHeaders();
    h.set("X-Svc-Api-Key", env.key);
    const ask = (query: Record<string, unknown>) =>
      nc.request("svc.v1.evm.balances.get", JSON.stringify({ params: { address: wallet }, query }), {
        headers: h,
        timeout: 10_000,
      });
    expect((await ask({ chain_ids: "1", limit: "5" })).headers?.get("Svc-Status")).toBe("200");
    const refused = await ask({ chain_ids: 1, limit: "5" });
    expect(refused.headers?.get("Svc-Status")).toBe("400");
    expect(refused.json()).toMatchObject({ code: "INVALID_QUERY_PARAMETER" });
    await nc.close();
    // The same wallet spelt in capitals is another request with the same answer.
    const upper = (await (
      await get(`/v1/evm/balances/0x${wallet.slice(2).toUpperCase()}?chain_ids=1&limit=5`)
    ).json()) as Body;
    expect(upper.wallet_address).toBe(wallet.toLowerCase());
  });

  it("error: a kept reply is still rate limited per key", async () => {
    const path = `/v1/evm/balances/${chain.wallets.whale}?chain_ids=1`;
    expect((await get(path)).status).toBe(200); // kept, by another key
    const limited = await keyOf("slow-replays", new RateLimit({ requests_per_second: 0.5, burst: 2 }));
    const statuses: Array<number> = [];
    for (let i = 0; i < 3; i++) {
      const res = await get(path, limited);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get("x-compute-units")).toBe("0");
        expect(await res.json()).toMatchObject({ code: "RATE_LIMITED" });
      }
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
