import type { DecodedEvent } from "../events/DecodedEvent.js";
import { type AssetType, NATIVE_TOKEN } from "./Activity.js";
import { type Movement, ZERO_ADDRESS } from "./Movement.js";

/** The transaction fields movement collection reads. */
export interface MovementTransaction {
  readonly from: string;
  readonly to: string | null;
  readonly value: string;
  readonly contract_address: string | null;
}

/** The internal-transfer fields movement collection reads. */
export interface InternalTransferLike {
  readonly from: string;
  readonly to: string;
  readonly value: string;
}

const movement = (
  position: string,
  logIndex: number | undefined,
  assetType: AssetType,
  token: string,
  from: string,
  to: string,
  value: bigint,
  id: bigint | undefined,
): Movement => ({ position, logIndex, assetType, token, from, to, value, id });

/**
 * Some wrapped-native tokens emit `Transfer` from/to the zero address next to `Deposit`/`Withdrawal`;
 * the event pair is one movement, so the `Deposit`/`Withdrawal` is dropped when such a twin exists.
 */
const hasTransferTwin = (
  events: ReadonlyArray<DecodedEvent>,
  token: string,
  from: string,
  to: string,
  value: bigint,
) =>
  events.some(
    (e) =>
      e.kind === "erc20.transfer" &&
      e.address === token &&
      e.from === from &&
      e.to === to &&
      e.value === value,
  );

const fromEvent = (
  e: DecodedEvent,
  events: ReadonlyArray<DecodedEvent>,
  wrappedNative: string | undefined,
  out: Array<Movement>,
): void => {
  const at = e.logIndex;
  switch (e.kind) {
    case "erc20.transfer":
      if (e.value !== 0n)
        out.push(movement(`l${at}`, at, "erc20", e.address, e.from, e.to, e.value, undefined));
      return;
    case "erc721.transfer":
      out.push(movement(`l${at}`, at, "erc721", e.address, e.from, e.to, 1n, e.tokenId));
      return;
    case "erc1155.transferSingle":
      if (e.value !== 0n) out.push(movement(`l${at}`, at, "erc1155", e.address, e.from, e.to, e.value, e.id));
      return;
    case "erc1155.transferBatch":
      for (let k = 0; k < e.ids.length; k++) {
        const value = e.values[k]!;
        if (value !== 0n)
          out.push(movement(`l${at}.${k}`, at, "erc1155", e.address, e.from, e.to, value, e.ids[k]!));
      }
      return;
    case "weth.deposit":
      if (e.address !== wrappedNative || e.wad === 0n) return;
      if (hasTransferTwin(events, e.address, ZERO_ADDRESS, e.dst, e.wad)) return;
      out.push(movement(`l${at}`, at, "erc20", e.address, ZERO_ADDRESS, e.dst, e.wad, undefined));
      return;
    case "weth.withdrawal":
      if (e.address !== wrappedNative || e.wad === 0n) return;
      if (hasTransferTwin(events, e.address, e.src, ZERO_ADDRESS, e.wad)) return;
      out.push(movement(`l${at}`, at, "erc20", e.address, e.src, ZERO_ADDRESS, e.wad, undefined));
      return;
    default:
      return;
  }
};

/**
 * Every value movement of a successful transaction, in order: its own native value, internal
 * transfers in trace order, then token movements in log order. Zero amounts are dropped (they move
 * nothing, and zero-value `transferFrom` is the address-poisoning trick).
 */
export const collectMovements = (
  tx: MovementTransaction,
  events: ReadonlyArray<DecodedEvent>,
  internalTransfers: ReadonlyArray<InternalTransferLike> | null,
  wrappedNative: string | undefined,
): Array<Movement> => {
  const out: Array<Movement> = [];
  const value = BigInt(tx.value);
  const target = tx.to ?? tx.contract_address;
  if (value !== 0n && target !== null)
    out.push(movement("tx", undefined, "native", NATIVE_TOKEN, tx.from, target, value, undefined));
  if (internalTransfers !== null) {
    for (let k = 0; k < internalTransfers.length; k++) {
      const transfer = internalTransfers[k]!;
      const amount = BigInt(transfer.value);
      if (amount !== 0n)
        out.push(
          movement(`i${k}`, undefined, "native", NATIVE_TOKEN, transfer.from, transfer.to, amount, undefined),
        );
    }
  }
  for (const event of events) fromEvent(event, events, wrappedNative, out);
  return out;
};

/**
 * The token movements of one transaction's events alone, in log order: what a `history` block (logs
 * only, no transactions or traces) still reveals.
 */
export const collectEventMovements = (
  events: ReadonlyArray<DecodedEvent>,
  wrappedNative: string | undefined,
): Array<Movement> => {
  const out: Array<Movement> = [];
  for (const event of events) fromEvent(event, events, wrappedNative, out);
  return out;
};
