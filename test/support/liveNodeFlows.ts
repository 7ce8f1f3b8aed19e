import { Effect } from "effect";
import { expect } from "vitest";
import type { FollowerStatus } from "../../src/ingest/FollowerStatus.js";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { nativeBalance, nodeCall, sendNative } from "./chainNode.js";
import { ALL_CHAIN_IDS, entriesOf, type RealNodeEnv } from "./realNodeFlows.js";
import { eventually } from "./serviceHarness.js";
import { WEBHOOKS } from "./webhookEnv.js";
import type { Receiver } from "./webhookReceiver.js";

/** Every devnet chain, as numbers. */
const CHAIN_IDS = [1, 8453, 10, 57073] as const;

/**
 * The live flows through whatever nodes `env` puts in front of the chains: a transfer on every chain
 * delivered to a `transactions` webhook, balances that follow the live blocks to the nodes' own
 * amounts, and on each of `reorgChains` a block replaced by a longer branch, after which the answers
 * are the new branch's. `tag` keeps the addresses of one call apart from another's on the same devnet.
 */
export const expectLiveFlows = async (
  env: RealNodeEnv,
  receiver: Receiver,
  options: { readonly reorgChains: ReadonlyArray<number>; readonly tag: number },
) => {
  const from = env.devnet.manifest.accounts[0]!.address;
  const address = (n: number) => `0x${"0".repeat(31)}feed${options.tag.toString(16).padStart(4, "0")}${n}`;
  const watched = address(0);
  const created = await env.call("POST", WEBHOOKS, {
    name: `live flows ${options.tag}`,
    url: receiver.url,
    type: "transactions",
    addresses: [watched],
  });
  expect(created.status).toBe(200);
  const delivered = (id: number) =>
    receiver.received.some(
      (r) => r.headers["svc-webhook-chain-id"] === String(id) && r.body.includes(watched.slice(2)),
    );
  // The notifier takes the new address in a moment: send until each chain's transfer is delivered.
  await eventually(
    async () => {
      const pending = CHAIN_IDS.filter((id) => !delivered(id));
      for (const id of pending) await sendNative(env.chain(id).rpc_url, from, watched, 1_000n);
      await new Promise((r) => setTimeout(r, 700));
      return CHAIN_IDS.every(delivered);
    },
    90_000,
    "a delivery on every chain",
  );
  // Balances follow the live blocks: the amounts equal the nodes' own.
  await eventually(
    async () => {
      const answer = await env.call("GET", `/v1/evm/balances/${watched}?chain_ids=${ALL_CHAIN_IDS}`);
      expect(answer.status).toBe(200);
      const amounts = new Map(
        entriesOf(answer, "balances").map((e) => [e.chain_id, BigInt(String(e.amount))]),
      );
      for (const id of CHAIN_IDS)
        if (amounts.get(id) !== (await nativeBalance(env.chain(id).rpc_url, watched))) return false;
      return true;
    },
    30_000,
    "balances equal to the nodes'",
  );
  await Promise.all(options.reorgChains.map((id) => expectReorgFollowed(env, id, address(1), address(2))));
};

/** A block on `chainId` replaced by a longer branch: answers end as the new branch's. */
const expectReorgFollowed = async (env: RealNodeEnv, chainId: number, orphaned: string, kept: string) => {
  const url = env.chain(chainId).rpc_url;
  const from = env.devnet.manifest.accounts[0]!.address;
  let lastAnswer = "";
  const nativeOf = async (wallet: string) => {
    const answer = await env.call("GET", `/v1/evm/balances/${wallet}?chain_ids=${chainId}`);
    lastAnswer = JSON.stringify(answer.json);
    expect(answer.status, lastAnswer).toBe(200);
    // An answer that names the chain in its errors says nothing of the wallet's balance there.
    const failed = (answer.json as { errors?: { chain_errors?: ReadonlyArray<unknown> } }).errors
      ?.chain_errors?.length;
    if (failed) return "unanswered";
    return entriesOf(answer, "balances").find((e) => e.address === "native")?.amount;
  };
  const snapshot = await nodeCall<string>(url, "evm_snapshot");
  await sendNative(url, from, orphaned, 7_000n);
  await eventually(
    async () => (await nativeOf(orphaned)) === "7000",
    30_000,
    `the orphan block on ${chainId}`,
  );
  await nodeCall(url, "evm_revert", [snapshot]);
  await sendNative(url, from, kept, 9_000n);
  await nodeCall(url, "anvil_mine", ["0x2"]);
  // Until the index has followed the reorg, answers are those of the block it stands on: the
  // orphaned one, then the common ancestor. Once it holds the new branch's head (longer than the
  // orphaned branch), the orphaned transfer is gone and the kept one is there.
  const newHead = Number.parseInt(await nodeCall<string>(url, "eth_blockNumber"), 16);
  let chain: { indexed_block?: number | null } | undefined;
  await eventually(
    async () => {
      const health = (await env.call("GET", "/healthz")).json as {
        chains: Array<{ chain_id: number; indexed_block?: number | null }>;
      };
      chain = health.chains.find((c) => c.chain_id === chainId);
      return (chain?.indexed_block ?? 0) >= newHead;
    },
    // On a loaded machine a chain's lease can lapse and pass to a stand-by follower, which then
    // follows the reorg a lease's length later.
    90_000,
    `the new branch on ${chainId} indexed`,
  ).catch(async (error: Error) => {
    throw new Error(
      `${error.message} (head ${newHead}; /healthz: ${JSON.stringify(chain)}; ingest: ${await ingestStatusOf(env, chainId)})`,
    );
  });
  // A read on a loaded machine can still name the chain in its errors (its budget ran out): the
  // answers are asked until both come whole, and then must be the new branch's. The orphaned
  // address's is the node's own: anvil now and then mines a reverted transaction again on the new
  // branch (2 of 30 tries on a bare anvil), and the answer must then show it.
  const orphanedOnNode = await nativeBalance(url, orphaned);
  await eventually(
    async () =>
      (await nativeOf(kept)) === "9000" &&
      (await nativeOf(orphaned)) === (orphanedOnNode === 0n ? undefined : String(orphanedOnNode)),
    30_000,
    `the new branch's balances on ${chainId}`,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the last answer: ${lastAnswer}`);
  });
};

/**
 * The chain's follower status as ingest last wrote it (`ingest_status`), for a failure message: its
 * last error and error count say which read keeps failing when the index stops short of the head.
 */
const ingestStatusOf = async (env: RealNodeEnv, chainId: number): Promise<string> => {
  const nc = await env.nats.connectAs("api");
  try {
    const bucket = await Effect.runPromise(openBucket(nc, "ingest_status"));
    const status = (await bucket.get(String(chainId)))?.json<FollowerStatus>();
    if (status === undefined) return "(no status)";
    const { head, processed, mode, reorgs, rpc_errors, last_error, updated_at } = status;
    return JSON.stringify({ head, processed, mode, reorgs, rpc_errors, last_error, updated_at });
  } catch (error) {
    return `(unreadable: ${String(error)})`;
  } finally {
    await nc.close();
  }
};
