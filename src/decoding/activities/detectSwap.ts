import type { DecodedEvent } from "../events/DecodedEvent.js";
import { NATIVE_TOKEN } from "./Activity.js";
import type { Movement } from "./Movement.js";

/** The two legs of a wallet's swap and what it went through. */
export interface SwapLegs {
  readonly fromToken: string;
  readonly fromValue: bigint;
  readonly toToken: string;
  readonly toValue: bigint;
  /** V2/V3 pool addresses and V4 pool ids, unique, in log order. */
  readonly pools: ReadonlyArray<string>;
}

const swapPools = (events: ReadonlyArray<DecodedEvent>): Array<string> => {
  const pools: Array<string> = [];
  for (const event of events) {
    const pool =
      event.kind === "v2.swap" || event.kind === "v3.swap"
        ? event.address
        : event.kind === "v4.swap"
          ? event.id
          : undefined;
    if (pool !== undefined && !pools.includes(pool)) pools.push(pool);
  }
  return pools;
};

/** Net change per fungible asset (native and ERC-20) of `wallet` over the transaction. */
const netFlows = (wallet: string, movements: ReadonlyArray<Movement>): Map<string, bigint> => {
  const net = new Map<string, bigint>();
  for (const m of movements) {
    if (m.assetType !== "native" && m.assetType !== "erc20") continue;
    if (m.from === wallet) net.set(m.token, (net.get(m.token) ?? 0n) - m.value);
    if (m.to === wallet) net.set(m.token, (net.get(m.token) ?? 0n) + m.value);
  }
  return net;
};

/**
 * Without traces a router's unwrap-and-send of native is invisible; the wrapped-native `Withdrawal`
 * by someone else than the wallet is then the best evidence of the native leg and its size.
 */
const unwrappedNative = (
  wallet: string,
  events: ReadonlyArray<DecodedEvent>,
  wrappedNative: string | undefined,
): bigint | undefined => {
  for (let k = events.length - 1; k >= 0; k--) {
    const event = events[k]!;
    if (event.kind === "weth.withdrawal" && event.address === wrappedNative && event.src !== wallet)
      return event.wad;
  }
  return undefined;
};

/**
 * The swap of `wallet` (the transaction sender) in one successful transaction, if any: the
 * transaction contains a V2, V3 or V4 `Swap` event, and the wallet's net flows over native and ERC-20
 * have exactly one asset down and one asset up. When traces are absent and only the asset given is
 * visible, a wrapped-native `Withdrawal` stands in for a native leg received.
 */
export const detectSwap = (
  wallet: string,
  movements: ReadonlyArray<Movement>,
  events: ReadonlyArray<DecodedEvent>,
  tracesAvailable: boolean,
  wrappedNative: string | undefined,
): SwapLegs | undefined => {
  const pools = swapPools(events);
  if (pools.length === 0) return undefined;
  let given: [string, bigint] | undefined;
  let received: [string, bigint] | undefined;
  for (const [token, delta] of netFlows(wallet, movements)) {
    if (delta < 0n) {
      if (given !== undefined) return undefined;
      given = [token, -delta];
    } else if (delta > 0n) {
      if (received !== undefined) return undefined;
      received = [token, delta];
    }
  }
  if (given === undefined) return undefined;
  if (received === undefined && !tracesAvailable && given[0] !== NATIVE_TOKEN) {
    const wad = unwrappedNative(wallet, events, wrappedNative);
    if (wad !== undefined) received = [NATIVE_TOKEN, wad];
  }
  if (received === undefined) return undefined;
  return { fromToken: given[0], fromValue: given[1], toToken: received[0], toValue: received[1], pools };
};
