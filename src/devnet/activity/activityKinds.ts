import type { TransactionReceipt } from "viem";
import type { ActivityContext } from "./ActivityContext.js";
import { burnV2, burnV3, burnV4, mintV2, mintV3, mintV4 } from "./liquidityActions.js";
import { swapV2, swapV3, swapV4 } from "./swapActions.js";
import {
  approval,
  erc20Transfer,
  erc721Transfer,
  erc1155Transfer,
  nativeTransfer,
} from "./transferActions.js";

/** One kind of activity and the transactions (with receipts) it sends. */
export type ActivityAction = (ctx: ActivityContext) => Promise<TransactionReceipt[]>;

/**
 * Every kind the generator sends, in the order of one round. The mix is a round-robin, so a round of
 * `ACTIVITY_KINDS.length` actions per chain covers every kind once (burns follow their mints).
 */
export const ACTIVITY_KINDS = {
  native_transfer: nativeTransfer,
  erc20_transfer: erc20Transfer,
  approval,
  swap_v2: swapV2,
  swap_v3: swapV3,
  swap_v4: swapV4,
  lp_mint_v2: mintV2,
  lp_mint_v3: mintV3,
  lp_mint_v4: mintV4,
  erc721_transfer: erc721Transfer,
  erc1155_transfer: erc1155Transfer,
  lp_burn_v2: burnV2,
  lp_burn_v3: burnV3,
  lp_burn_v4: burnV4,
} as const satisfies Record<string, ActivityAction>;

export type ActivityKind = keyof typeof ACTIVITY_KINDS;
