import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { adminBuckets } from "../../support/anvilService.js";
import { rewriteChainsFile } from "../../support/chainsFile.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { startFlakyProxy } from "../../support/flakyProxy.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, type RunningService, startService } from "../../support/serviceHarness.js";

/**
 * A chain whose node fails is reported in `errors` and not charged, the others are answered; when
 * every requested chain fails the request is a 503. Positions and balances share this behaviour.
 */

let nats: TestNats;
let devnet: TestDevnet;
let service: RunningService;
let key: string;
const proxies = new Map<number, Awaited<ReturnType<typeof startFlakyProxy>>>();

const get = (path: string) => fetch(`${service.baseUrl}${path}`, { headers: { "x-svc-api-key": key } });

beforeAll(async () => {
  nats = await startTestNats();
  devnet = await startTestDevnet();
  for (const chain of devnet.manifest.chains)
    proxies.set(chain.chain_id, await startFlakyProxy(chain.rpc_url));
  const chainsConfig = await rewriteChainsFile(
    devnet.devnet.chainsConfigPath,
    new Map([...proxies].map(([id, proxy]) => [id, proxy.url])),
  );
  service = await startService(nats, { chainsConfig });
  key = (await Effect.runPromise(createKey(await adminBuckets(await nats.connectAs("admin")), "failures")))
    .key;
  await eventually(
    async () => (await fetch(`${service.baseUrl}/healthz`)).status === 200,
    60_000,
    "healthz 200",
  );
});

afterAll(async () => {
  await service?.stop();
  for (const proxy of proxies.values()) await proxy.stop();
  await devnet?.stop();
  await nats?.stop();
});

describe("a chain whose node fails", () => {
  it("behavior: goes in errors.chain_errors, uncharged, while the other chains answer; all failing is a 503", async () => {
    const lp = devnet.manifest.chains.find((c) => c.chain_id === 1)!.wallets.liquidity!;
    proxies.get(8453)!.setMode("error500");

    const positions = await get(`/beta/evm/defi/positions/${lp}?chain_ids=1,8453,10`);
    expect(positions.status).toBe(200);
    const body = (await positions.json()) as {
      positions: Array<{ chain_id: number }>;
      errors: { error_message: string; chain_errors: Array<{ chain_id: number; description: string }> };
    };
    expect(body.errors.chain_errors).toEqual([
      { chain_id: 8453, description: expect.stringMatching(/^Positions could not be read: /) },
    ]);
    expect(new Set(body.positions.map((p) => p.chain_id))).toEqual(new Set([1, 10]));
    expect(positions.headers.get("x-compute-units")).toBe("4");

    const balances = await get(`/v1/evm/balances/${lp}?chain_ids=1,8453`);
    expect(balances.status).toBe(200);
    const balancesBody = (await balances.json()) as { errors: { chain_errors: Array<{ chain_id: number }> } };
    expect(balancesBody.errors.chain_errors.map((e) => e.chain_id)).toEqual([8453]);

    // Answers already read at the indexed blocks stay valid; a wallet not asked for yet needs the nodes.
    const receiver = devnet.manifest.chains.find((c) => c.chain_id === 1)!.wallets.nft_receiver!;
    for (const proxy of proxies.values()) proxy.setMode("error500");
    const none = await get(`/beta/evm/defi/positions/${receiver}?chain_ids=1,8453,10`);
    expect(none.status).toBe(503);
    expect(none.headers.get("x-compute-units")).toBe("0");
    expect(await none.json()).toMatchObject({ code: "CHAINS_UNAVAILABLE" });

    // Recovered means every chain answers again: a node that failed is left alone for a while
    // (doubling while it keeps failing), and a 200 needs only one chain.
    for (const proxy of proxies.values()) proxy.setMode("pass");
    await eventually(
      async () => {
        const again = await get(`/beta/evm/defi/positions/${receiver}?chain_ids=1,8453,10`);
        return again.status === 200 && ((await again.json()) as { errors?: unknown }).errors === undefined;
      },
      30_000,
      "every chain recovered",
    );
  });

  it("behavior: a chain that failed on a balances listing's first page stays out of its later pages, which say so", async () => {
    type Page = {
      balances?: Array<{ chain_id: number }>;
      next_offset?: string;
      errors?: { chain_errors: Array<{ chain_id: number; description: string }> };
    };
    const whale = devnet.manifest.chains.find((c) => c.chain_id === 1)!.wallets.whale!;
    const listing = `/v1/evm/balances/${whale}?chain_ids=1,8453&limit=2`;
    proxies.get(8453)!.setMode("error500");
    const firstResponse = await get(listing);
    const first = (await firstResponse.json()) as Page;
    expect(firstResponse.status, JSON.stringify(first)).toBe(200);
    expect(first.errors?.chain_errors.map((e) => e.chain_id)).toEqual([8453]);
    expect(first.next_offset).toBeDefined();

    // Chain 8453 answers again before the next page is asked for.
    proxies.get(8453)!.setMode("pass");
    await eventually(
      async () => {
        const alone = (await (await get(`/v1/evm/balances/${whale}?chain_ids=8453`)).json()) as Page;
        return alone.errors === undefined && (alone.balances?.length ?? 0) > 0;
      },
      20_000,
      "chain 8453 read again",
    );
    const second = (await (await get(`${listing}&offset=${first.next_offset}`)).json()) as Page;
    // Read now, its entries would land in pages already past them: the listing leaves it out.
    expect(second.balances?.length).toBeGreaterThan(0);
    expect(second.balances?.every((entry) => entry.chain_id === 1)).toBe(true);
    expect(second.errors?.chain_errors).toEqual([
      { chain_id: 8453, description: expect.stringMatching(/ask again without offset/) },
    ]);
  });
});
