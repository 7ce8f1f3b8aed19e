import { describe, expect, it } from "vitest";
import { makePrefetchQueue } from "../../../src/discovery/prefetchQueue.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const [mainnet, base] = [1, 8453].map((chain_id) => testChainConfig({ chain_id, name: `chain_${chain_id}` }));
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** Waits until `done` holds (for 5 s at most). */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 5_000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!done()) throw new Error("never happened");
};

/**
 * A queue whose discoveries wait until `release` (all of them, from then on), recording each
 * pair as it starts.
 */
const gatedQueue = (max = 1_000) => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started: Array<string> = [];
  const queue = makePrefetchQueue({
    discover: async (chain, w) => {
      started.push(`${chain.chain_id}:${w}`);
      await gate;
      return true;
    },
    known: () => false,
    key: (chainId, w) => `${chainId}|${w}`,
    max,
    perSecond: 1_000_000,
  });
  return { queue, started, release };
};

describe("the webhooks' discovery queue", () => {
  it("behavior: each chain has a line of its own and the lines take turns, one discovery at a time: one chain's long line does not hold back another chain's wallets", async () => {
    const started: Array<string> = [];
    let running = 0;
    let most = 0;
    const queue = makePrefetchQueue({
      discover: async (chain, w) => {
        started.push(`${chain.chain_id}:${w}`);
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        return true;
      },
      known: () => false,
      key: (chainId, w) => `${chainId}|${w}`,
      max: 1_000,
      perSecond: 1_000_000,
    });
    queue.add([mainnet!], [wallet(1), wallet(2), wallet(3)], "wh_a");
    queue.add([base!], [wallet(4)], "wh_b");
    expect(queue.byChain()).toEqual(
      new Map([
        [1, 2],
        [8453, 1],
      ]),
    );
    await until(() => started.length === 4 && running === 0);
    // Base's one wallet went second, not after mainnet's three; never two at once.
    expect(started).toEqual([`1:${wallet(1)}`, `8453:${wallet(4)}`, `1:${wallet(2)}`, `1:${wallet(3)}`]);
    expect(most).toBe(1);
    expect(queue.size()).toBe(0);
  });

  it("edge: a discovery that outlasts its turn lets the next chain's line go on, and holds its own line until it ends", async () => {
    const started: Array<string> = [];
    const turnsOver: Array<() => void> = [];
    let unhang = () => {};
    const hung = new Promise<void>((resolve) => {
      unhang = resolve;
    });
    const queue = makePrefetchQueue({
      // Mainnet's nodes hang; base answers at once.
      discover: async (chain, w) => {
        started.push(`${chain.chain_id}:${w}`);
        if (chain.chain_id === 1) await hung;
        return true;
      },
      known: () => false,
      key: (chainId, w) => `${chainId}|${w}`,
      max: 1_000,
      perSecond: 1_000_000,
      turnOver: () => new Promise<void>((resolve) => turnsOver.push(resolve)),
    });
    queue.add([mainnet!], [wallet(1), wallet(2)]);
    queue.add([base!], [wallet(3)]);
    await until(() => started.length === 1);
    // Until the hung discovery's turn is over, base waits behind it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([`1:${wallet(1)}`]);
    turnsOver[0]!();
    await until(() => started.length === 2);
    expect(started[1]).toBe(`8453:${wallet(3)}`);
    // Mainnet's next wallet waits for its line's own discovery, however many turns go by.
    for (const over of turnsOver) over();
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.byChain()).toEqual(new Map([[1, 1]]));
    unhang();
    await until(() => started.length === 3);
    expect(started[2]).toBe(`1:${wallet(2)}`);
  });

  it("edge: past the queue's bound new wallets are left out, but a waiting one still takes another webhook's claim", async () => {
    const { queue, started, release } = gatedQueue(3);
    queue.add([mainnet!], [wallet(9)]); // takes the turn and waits
    await until(() => started.length === 1);
    expect(queue.add([mainnet!], [wallet(1), wallet(2), wallet(3)], "wh_a")).toBe(3);
    // Full: the new wallet is left out, the waiting one behind it is claimed by wh_b too.
    expect(queue.add([mainnet!], [wallet(4), wallet(2)], "wh_b")).toBe(0);
    expect(queue.withdraw("wh_a", [wallet(1), wallet(2), wallet(3)])).toBe(2);
    expect(queue.byChain()).toEqual(new Map([[1, 1]]));
    release();
    await until(() => started.length === 2);
    expect(started).toEqual([`1:${wallet(9)}`, `1:${wallet(2)}`]);
  });

  it("behavior: a webhook that stops watching wallets takes out those only it wanted; another webhook's claim or an unnamed caller's keeps them", async () => {
    const { queue, started, release } = gatedQueue();
    queue.add([mainnet!], [wallet(9)]); // takes the line's turn and waits
    await until(() => started.length === 1);
    expect(queue.add([mainnet!], [wallet(1), wallet(2), wallet(3)], "wh_a")).toBe(3);
    // The same wallets again: not queued twice, but claimed by a second webhook and an unnamed caller.
    expect(queue.add([mainnet!], [wallet(2)], "wh_b")).toBe(0);
    expect(queue.add([mainnet!], [wallet(3)])).toBe(0);
    expect(queue.size()).toBe(3);
    // Withdrawing a claim nobody made, or a wallet not waiting, changes nothing.
    expect(queue.withdraw("wh_c", [wallet(1)])).toBe(0);
    expect(queue.withdraw("wh_a", [wallet(7)])).toBe(0);
    expect(queue.withdraw("wh_a", [wallet(1), wallet(2), wallet(3)])).toBe(1);
    expect(queue.byChain()).toEqual(new Map([[1, 2]]));
    release();
    await until(() => started.length === 3);
    expect(started).toEqual([`1:${wallet(9)}`, `1:${wallet(2)}`, `1:${wallet(3)}`]);
  });

  it("behavior: a webhook that stops watching some chains takes its wallets off those chains' lines only", async () => {
    const { queue, started, release } = gatedQueue();
    queue.add([mainnet!], [wallet(9)]); // takes the turn and waits
    await until(() => started.length === 1);
    expect(queue.add([mainnet!, base!], [wallet(1), wallet(2)], "wh_a")).toBe(4);
    expect(queue.withdraw("wh_a", [wallet(1), wallet(2)], [8453])).toBe(2);
    expect(queue.byChain()).toEqual(new Map([[1, 2]]));
    // An empty list of chains withdraws nothing.
    expect(queue.withdraw("wh_a", [wallet(1)], [])).toBe(0);
    release();
    await until(() => started.length === 3);
    expect(started).toEqual([`1:${wallet(9)}`, `1:${wallet(1)}`, `1:${wallet(2)}`]);
  });

  it("edge: a dropped pair restored goes to the end of its line with the claims still on it; one whose webhook withdrew meanwhile is not restored", async () => {
    const { queue, started, release } = gatedQueue();
    queue.add([mainnet!], [wallet(9)]); // takes the line's turn and waits
    await until(() => started.length === 1);
    queue.add([mainnet!], [wallet(1), wallet(2), wallet(3)], "wh_a");
    const dropped = queue.drop(`1|${wallet(1)}`);
    expect(dropped?.wallet).toBe(wallet(1));
    expect(queue.size()).toBe(2);
    queue.restore(dropped!);
    expect(queue.size()).toBe(3);
    // wh_a's claim came back with it: withdrawing it takes the pair out again.
    expect(queue.withdraw("wh_a", [wallet(1)])).toBe(1);
    // Dropped, then withdrawn while its request runs: the failed request does not bring it back.
    const gone = queue.drop(`1|${wallet(2)}`)!;
    queue.withdraw("wh_a", [wallet(2)]);
    queue.restore(gone);
    // Dropped and settled: a late restore does nothing either.
    const done = queue.drop(`1|${wallet(3)}`)!;
    queue.settled(done);
    queue.restore(done);
    expect(queue.size()).toBe(0);
    release();
    await until(() => started.length === 1 && queue.size() === 0);
    expect(started).toEqual([`1:${wallet(9)}`]);
  });

  it("behavior: a wallet whose discovery asked the nodes nothing (found complete in its record) does not hold its line for the pause", async () => {
    const started: Array<string> = [];
    const queue = makePrefetchQueue({
      // Wallets 1-3 were discovered before; wallet 4 is new.
      discover: async (_chain, w) => {
        started.push(w);
        return w === wallet(4);
      },
      known: () => false,
      key: (chainId, w) => `${chainId}|${w}`,
      max: 1_000,
      // One a minute: only wallets that asked the nodes wait for it.
      perSecond: 1 / 60,
    });
    queue.add([mainnet!], [wallet(1), wallet(2), wallet(3), wallet(4), wallet(5)]);
    await until(() => started.length === 4);
    expect(started).toEqual([wallet(1), wallet(2), wallet(3), wallet(4)]);
    // Wallet 5 waits a minute behind wallet 4, which asked the nodes.
    expect(queue.size()).toBe(1);
  });

  it("edge: a pair a request started leaves its line at once, without a turn of its own", async () => {
    const { queue, started, release } = gatedQueue();
    queue.add([mainnet!], [wallet(1), wallet(2), wallet(3)], "wh_a");
    await until(() => started.length === 1);
    queue.drop(`1|${wallet(2)}`);
    expect(queue.size()).toBe(1);
    release();
    await until(() => queue.size() === 0 && started.length === 2);
    expect(started).toEqual([`1:${wallet(1)}`, `1:${wallet(3)}`]);
  });
});
