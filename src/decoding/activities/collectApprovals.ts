import type { DecodedEvent } from "../events/DecodedEvent.js";
import type { Erc20Approval, Erc721Approval } from "../events/TokenEvent.js";
import { ZERO_ADDRESS } from "./Movement.js";

/** One approval set by `owner`, before it becomes an `approve` activity. */
export interface Approval {
  readonly logIndex: number;
  readonly assetType: "erc20" | "erc721";
  readonly token: string;
  readonly owner: string;
  readonly spender: string;
  /** ERC-20 allowance. */
  readonly value: bigint | undefined;
  /** ERC-721 token id. */
  readonly id: bigint | undefined;
  /** `ApprovalForAll` flag. */
  readonly approved: boolean | undefined;
}

const isTransferOf = (approval: Erc20Approval | Erc721Approval, event: DecodedEvent | undefined): boolean => {
  if (event === undefined || event.address !== approval.address) return false;
  if (Math.abs(event.logIndex - approval.logIndex) !== 1) return false;
  if (approval.kind === "erc20.approval")
    return event.kind === "erc20.transfer" && event.from === approval.owner;
  return (
    event.kind === "erc721.transfer" &&
    event.from === approval.owner &&
    event.tokenId === approval.tokenId &&
    approval.approved === ZERO_ADDRESS
  );
};

/**
 * OpenZeppelin 4.x tokens emit `Approval` while spending an allowance in `transferFrom` (ERC-20) and
 * while clearing it on transfer (ERC-721): the owner granted nothing there. Such an `Approval` sits
 * right next to (log index ±1) the `Transfer` from the same owner of the same token.
 */
const isTransferSideEffect = (
  approval: Erc20Approval | Erc721Approval,
  events: ReadonlyArray<DecodedEvent>,
  k: number,
): boolean => isTransferOf(approval, events[k - 1]) || isTransferOf(approval, events[k + 1]);

/**
 * Approvals granted (or revoked) by their owners, in log order: ERC-20 `Approval`, ERC-721 `Approval`
 * and `ApprovalForAll`, without the side effects of transfers. `events` must be in log order.
 */
export const collectApprovals = (events: ReadonlyArray<DecodedEvent>): Array<Approval> => {
  const out: Array<Approval> = [];
  for (let k = 0; k < events.length; k++) {
    const e = events[k]!;
    const base = { logIndex: e.logIndex, token: e.address };
    if (e.kind === "erc20.approval") {
      if (isTransferSideEffect(e, events, k)) continue;
      out.push({
        ...base,
        assetType: "erc20",
        owner: e.owner,
        spender: e.spender,
        value: e.value,
        id: undefined,
        approved: undefined,
      });
    } else if (e.kind === "erc721.approval") {
      if (isTransferSideEffect(e, events, k)) continue;
      out.push({
        ...base,
        assetType: "erc721",
        owner: e.owner,
        spender: e.approved,
        value: undefined,
        id: e.tokenId,
        approved: undefined,
      });
    } else if (e.kind === "erc721.approvalForAll") {
      out.push({
        ...base,
        assetType: "erc721",
        owner: e.owner,
        spender: e.operator,
        value: undefined,
        id: undefined,
        approved: e.approved,
      });
    }
  }
  return out;
};
