import type { AlgebraEvent } from "./AlgebraEvent.js";
import type { LendingEvent } from "./LendingEvent.js";
import type { RestakeEvent } from "./RestakeEvent.js";
import type { TokenEvent } from "./TokenEvent.js";
import type { UniswapV2Event } from "./UniswapV2Event.js";
import type { UniswapV3Event } from "./UniswapV3Event.js";
import type { UniswapV4Event } from "./UniswapV4Event.js";
import type { YieldSplitEvent } from "./YieldSplitEvent.js";

/**
 * Every event the library decodes, tagged by `kind` (`<family>.<event>`). Addresses are lower case,
 * amounts bigint, ticks/fees/tick spacings numbers (they fit 24 bits).
 */
export type DecodedEvent =
  | TokenEvent
  | UniswapV2Event
  | UniswapV3Event
  | UniswapV4Event
  | AlgebraEvent
  | LendingEvent
  | RestakeEvent
  | YieldSplitEvent;

/** The `kind` tags, e.g. `"erc20.transfer"`, `"v3.swap"`. */
export type DecodedEventKind = DecodedEvent["kind"];

/** The minimum a decoder reads from a log; `ChainLog` satisfies it. */
export interface LogLike {
  /** Emitting contract, lower-case hex. */
  readonly address: string;
  /** Lower-case 0x + 64 hex each; topic 0 is the event selector. */
  readonly topics: ReadonlyArray<string>;
  /** Lower-case 0x-prefixed hex. */
  readonly data: string;
  readonly log_index: number;
  readonly transaction_index: number;
  readonly transaction_hash: string;
}
