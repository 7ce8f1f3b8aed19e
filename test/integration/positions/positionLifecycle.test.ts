import { headers as natsHeaders } from "@nats-io/transport-node";
import { type Address, createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveMax, v3Mint } from "../../../src/devnet/ammActions.js";
import { type ChainClient, chainClient } from "../../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { closeAndBurn, transferPosition } from "../../../src/devnet/positions/v3PositionActions.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";

/**
 * Positions follow the chain: a mint is visible on the next request after its block is indexed, a
 * transfer moves the NFT, a burn removes it, a reorg that takes the mint away takes the position
 * away. And the request surface: CU, warnings, every 400, and the same answer over NATS.
 */

interface Body {
  positions: Array<{ type: string; chain_id: number; positions?: Array<{ token_id: string }> }>;
  warnings?: Array<{ code: string; chain_ids: number[]; docs_url: string }>;
}

let env: DevnetService;
let chain: ManifestChain;
let client: ChainClient;

const tokenIdsOf = async (wallet: string): Promise<ReadonlyArray<bigint>> => {
  const res = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=1`);
  const body = (await res.json()) as Body;
  return body.positions.flatMap((p) => (p.positions ?? []).map((e) => BigInt(e.token_id)));
};

/** Mints a small in-range V3 WETH/USDC position (the deep 0.05 % pool) from `owner` to itself. */
const mint = async (owner: Address) => {
  const weth = chain.tokens.WETH!.address as Address;
  const usdc = chain.tokens.USDC!.address as Address;
  const manager = chain.contracts.uniswap_v3_position_manager as Address;
  for (const token of [weth, usdc]) await approveMax(client, owner, token, manager);
  const [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
  const { tokenId } = await v3Mint(client, {
    from: owner,
    positionManager: manager,
    token0,
    token1,
    fee: 500,
    tickLower: -887_270,
    tickUpper: 887_270,
    amount0: token0 === weth ? 10n ** 16n : 30_000_000n,
    amount1: token0 === weth ? 30_000_000n : 10n ** 16n,
    recipient: owner,
  });
  return tokenId;
};

beforeAll(async () => {
  env = await startDevnetService();
  chain = env.devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
});

afterAll(async () => {
  await env?.stop();
});

describe("positions follow the chain", () => {
  it("behavior: a mint shows on the next request after its block is indexed, a transfer moves it, a burn removes it", async () => {
    const alice = chain.wallets.activity_a as Address;
    const bob = chain.wallets.activity_b as Address;
    const tokenId = await mint(alice);
    await eventually(async () => (await tokenIdsOf(alice)).includes(tokenId), 20_000, "minted NFT visible");

    await transferPosition(
      {
        client,
        positionManager: chain.contracts.uniswap_v3_position_manager as Address,
        owner: alice,
        tokenId,
      },
      bob,
    );
    await eventually(
      async () => (await tokenIdsOf(bob)).includes(tokenId),
      20_000,
      "transferred NFT with bob",
    );
    expect(await tokenIdsOf(alice)).not.toContain(tokenId);

    await closeAndBurn({
      client,
      positionManager: chain.contracts.uniswap_v3_position_manager as Address,
      owner: bob,
      tokenId,
    });
    await eventually(async () => !(await tokenIdsOf(bob)).includes(tokenId), 20_000, "burned NFT gone");
  });

  it("behavior: a reorg that removes a mint removes the position", async () => {
    const carol = chain.wallets.activity_c as Address;
    const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
    const snapshot = await test.snapshot();
    const before = await client.publicClient.getBlockNumber();
    const tokenId = await mint(carol);
    const reorganised = Number((await client.publicClient.getBlockNumber()) - before);
    await eventually(async () => (await tokenIdsOf(carol)).includes(tokenId), 20_000, "minted NFT visible");
    await test.revert({ id: snapshot });
    // The canonical branch grows past the height of the reorganised blocks (approvals and mint).
    await test.mine({ blocks: reorganised + 2 });
    await eventually(
      async () => !(await tokenIdsOf(carol)).includes(tokenId),
      20_000,
      "reorganised mint gone",
    );
  });
});

describe("GET /beta/evm/defi/positions: the request surface", () => {
  const wallet = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045";

  it("default: 2 CU per chain served; without chain_ids, the default chains", async () => {
    const all = await env.get(`/beta/evm/defi/positions/${wallet}`);
    expect(all.status).toBe(200);
    // ethereum, base and optimism are tagged default on the devnet; ink is not.
    expect(all.headers.get("x-compute-units")).toBe("6");
    const one = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=1`);
    expect(one.headers.get("x-compute-units")).toBe("2");
    const tagged = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=mainnet,57073`);
    expect(tagged.headers.get("x-compute-units")).toBe("8");
  });

  it("behavior: unsupported chain ids are a warning, not an error", async () => {
    const res = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=1,999999`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-compute-units")).toBe("2");
    const body = (await res.json()) as Body;
    expect(body.warnings).toEqual([
      expect.objectContaining({
        code: "UNSUPPORTED_CHAIN_IDS",
        chain_ids: [999999],
        docs_url: expect.stringMatching(/supported-chains$/),
      }),
    ]);
  });

  it("error: a chain name, a malformed chain list or address is a 400 that says which, at 0 CU", async () => {
    for (const [path, code] of [
      [`/beta/evm/defi/positions/${wallet}?chain_ids=ethereum`, "INVALID_CHAIN_IDS"],
      [`/beta/evm/defi/positions/${wallet}?chain_ids=1,,8453`, "INVALID_CHAIN_IDS"],
      ["/beta/evm/defi/positions/0x1234", "INVALID_PATH_PARAMETER"],
      ["/beta/evm/defi/positions/vitalik.eth", "INVALID_PATH_PARAMETER"],
    ] as const) {
      const res = await env.get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code, path).toBe(code);
      expect(body.error).toMatch(path.includes("chain_ids") ? /chain_ids/ : /address/);
    }
  });

  it("behavior: the same request over NATS request/reply gets the same answer", async () => {
    const lp = chain.wallets.liquidity!;
    const http = (await (await env.get(`/beta/evm/defi/positions/${lp}?chain_ids=1`)).json()) as Body;
    const nc = await env.nats.connectAs("gateway");
    const headers = natsHeaders();
    headers.set("X-Svc-Api-Key", env.key);
    const reply = await nc.request(
      "svc.beta.evm.defi.positions.get",
      JSON.stringify({ params: { address: lp }, query: { chain_ids: "1" }, body: null }),
      { timeout: 10_000, headers },
    );
    expect(reply.headers?.get("Svc-Status")).toBe("200");
    expect(reply.json()).toEqual(http);
    expect(http.positions.length).toBeGreaterThan(3);
  });
});
