import { createHash } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

const hash = (text: string) => `0x${createHash("sha256").update(text).digest("hex")}`;

/** A live block message with one native transfer `from` -> `to` (no logs), as ingestion would publish it. */
export const syntheticBlock = (chainId: number, number: number, from: string, to: string, salt = "a") => {
  const blockHash = hash(`block:${chainId}:${number}:${salt}`);
  return {
    version: 1,
    chain_id: chainId,
    number,
    hash: blockHash,
    parent_hash: hash(`block:${chainId}:${number - 1}:${salt}`),
    timestamp: 1_800_000_000 + number,
    source: "live",
    transactions: [
      {
        hash: hash(`tx:${blockHash}`),
        index: 0,
        from,
        to,
        value: "1000",
        input: "0x",
        nonce: number % 1000,
        type: 2,
        success: true,
        gas_used: "21000",
        effective_gas_price: "1000000000",
        contract_address: null,
      },
    ],
    logs: [],
    internal_transfers: null,
  } as const;
};

export type SyntheticBlock = ReturnType<typeof syntheticBlock>;

/** Publishes chain events as the ingest user would (message id `<chain>:<hash>` unless given). */
export const chainPublisher = (ingest: NatsConnection) => {
  const js = jetstream(ingest);
  return {
    block: (block: SyntheticBlock, msgID = `${block.chain_id}:${block.hash}`) =>
      js.publish(`chain.${block.chain_id}.block`, JSON.stringify(block), { msgID }),
    reorg: (chainId: number, ancestor: SyntheticBlock, removed: ReadonlyArray<SyntheticBlock>) =>
      js.publish(
        `chain.${chainId}.reorg`,
        JSON.stringify({
          version: 1,
          chain_id: chainId,
          common_ancestor: { number: ancestor.number, hash: ancestor.hash },
          removed: removed.map((b) => ({ number: b.number, hash: b.hash })),
        }),
        { msgID: `${chainId}:reorg:${removed[0]?.hash}` },
      ),
  };
};
