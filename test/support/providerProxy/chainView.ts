import type { BlockRef } from "./blockRefs.js";
import type { Settings } from "./settings.js";
import type { Upstream } from "./upstream.js";

interface BlockHeader {
  readonly number: string;
  readonly stateRoot: string;
}

/**
 * The chain as the emulated node sees it while one request is served: its head (upstream's, less the
 * lag), the oldest block it still keeps whole, and lookups of block numbers. Each answer is asked of
 * upstream at most once per request, and only when a rule needs it.
 */
export class ChainView {
  private headPromise: Promise<number> | undefined;
  private readonly numbers = new Map<string, Promise<number | undefined>>();

  constructor(
    private readonly upstream: Upstream,
    private readonly settings: Settings,
  ) {}

  /** The emulated node's head. */
  head(): Promise<number> {
    this.headPromise ??= this.upstream
      .result("eth_blockNumber", [])
      .then((result) => Math.max(0, Number.parseInt(String(result), 16) - this.settings.headLag));
    return this.headPromise;
  }

  /** The oldest block whose logs, receipts and state are kept; undefined when nothing is pruned. */
  async earliestKept(): Promise<number | undefined> {
    if (this.settings.prunedWindow === undefined) return undefined;
    return Math.max(0, (await this.head()) - this.settings.prunedWindow);
  }

  /** The oldest block whose state is kept (`stateWindow`, else as `earliestKept`); undefined when none is pruned. */
  async earliestState(): Promise<number | undefined> {
    const window = this.settings.stateWindow ?? this.settings.prunedWindow;
    if (window === undefined) return undefined;
    return Math.max(0, (await this.head()) - window);
  }

  /** The number a block parameter names, as this node sees it; undefined when it names no known block. */
  async numberOf(ref: BlockRef): Promise<number | undefined> {
    switch (ref.kind) {
      case "number":
        return ref.number;
      case "hash":
        return this.numberOfHash(ref.hash);
      case "other":
        return undefined;
      case "tag":
        switch (ref.tag) {
          case "earliest":
            return 0;
          case "latest":
          case "pending":
            return this.head();
          default: {
            // A lagging node's safe and finalized blocks cannot be newer than its head.
            const block = (await this.upstream.result("eth_getBlockByNumber", [
              ref.tag,
              false,
            ])) as BlockHeader | null;
            const head = await this.head();
            return block === null ? head : Math.min(Number.parseInt(block.number, 16), head);
          }
        }
    }
  }

  numberOfHash(hash: string): Promise<number | undefined> {
    const key = hash.toLowerCase();
    let known = this.numbers.get(key);
    if (known === undefined) {
      known = this.upstream
        .result("eth_getBlockByHash", [hash, false])
        .then((block) => (block === null ? undefined : Number.parseInt((block as BlockHeader).number, 16)));
      this.numbers.set(key, known);
    }
    return known;
  }

  /** The state root of block `number`, which geth names when that state is gone. */
  async stateRoot(number: number): Promise<string> {
    const block = (await this.upstream.result("eth_getBlockByNumber", [`0x${number.toString(16)}`, false])) as
      | BlockHeader
      | undefined;
    return block?.stateRoot ?? `0x${"0".repeat(64)}`;
  }
}
