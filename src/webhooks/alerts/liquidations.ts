import { decodeEventLog, parseAbi, toEventSelector } from "viem";
import type { ChainLog } from "../../domain/ChainBlock.js";

/**
 * The liquidation events of the lending designs the positions endpoint reads, as each protocol
 * emits them: Aave V2 and V3 pools, cToken markets (Compound V2 and forks such as Venus), and
 * Comet markets (one AbsorbDebt and one AbsorbCollateral per asset taken, per absorbed account).
 */
const LIQUIDATION_ABI = parseAbi([
  "event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)",
  "event LiquidateBorrow(address liquidator, address borrower, uint256 repayAmount, address cTokenCollateral, uint256 seizeTokens)",
  "event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue)",
  "event AbsorbCollateral(address indexed absorber, address indexed borrower, address indexed asset, uint256 collateralAbsorbed, uint256 usdValue)",
]);
const TOPICS: ReadonlySet<string> = new Set(LIQUIDATION_ABI.map((event) => toEventSelector(event)));

/** Which design emitted a liquidation, for checking that its emitter is a market of that design. */
export type LiquidationDesign = "aave" | "ctoken" | "comet";

/** An amount a liquidation moved: the raw amount of the event, in the units it names. */
export interface LiquidationLeg {
  /** Aave: the reserve asset; cToken: the cToken (seized amounts are cToken units); Comet: the asset. */
  readonly token: string;
  readonly amount: string;
  /** Comet only: the USD value the market itself gave it (8 decimals, as emitted). */
  readonly usd_value?: string;
}

/** One wallet's liquidation in one market by one transaction, with every leg its events name. */
export interface Liquidation {
  readonly design: LiquidationDesign;
  /** The emitting contract: the Aave pool, the borrowed cToken, or the Comet. */
  readonly market: string;
  readonly wallet: string;
  readonly liquidator: string;
  readonly transactionHash: string;
  /** The first event's log index, which keys the alert. */
  readonly logIndex: number;
  readonly seized: ReadonlyArray<LiquidationLeg>;
  readonly repaid: ReadonlyArray<LiquidationLeg>;
}

type Decoded = {
  readonly design: LiquidationDesign;
  readonly wallet: string;
  readonly liquidator: string;
  readonly seized?: LiquidationLeg;
  readonly repaid?: LiquidationLeg;
};

const lower = (value: string) => value.toLowerCase();

/** One log as a liquidation leg of a wallet, or undefined when it is none (or malformed). */
const decodeLiquidation = (log: ChainLog): Decoded | undefined => {
  if (!TOPICS.has(log.topics[0] ?? "")) return undefined;
  let decoded: ReturnType<typeof decodeEventLog<typeof LIQUIDATION_ABI>>;
  try {
    decoded = decodeEventLog({
      abi: LIQUIDATION_ABI,
      data: log.data as `0x${string}`,
      topics: log.topics as [`0x${string}`, ...Array<`0x${string}`>],
    });
  } catch {
    // Another event with the same signature hash but other indexed fields: not a liquidation.
    return undefined;
  }
  switch (decoded.eventName) {
    case "LiquidationCall":
      return {
        design: "aave",
        wallet: lower(decoded.args.user),
        liquidator: lower(decoded.args.liquidator),
        seized: {
          token: lower(decoded.args.collateralAsset),
          amount: String(decoded.args.liquidatedCollateralAmount),
        },
        repaid: { token: lower(decoded.args.debtAsset), amount: String(decoded.args.debtToCover) },
      };
    case "LiquidateBorrow":
      return {
        design: "ctoken",
        wallet: lower(decoded.args.borrower),
        liquidator: lower(decoded.args.liquidator),
        seized: { token: lower(decoded.args.cTokenCollateral), amount: String(decoded.args.seizeTokens) },
        repaid: { token: log.address, amount: String(decoded.args.repayAmount) },
      };
    case "AbsorbDebt":
      return {
        design: "comet",
        wallet: lower(decoded.args.borrower),
        liquidator: lower(decoded.args.absorber),
        repaid: {
          token: log.address,
          amount: String(decoded.args.basePaidOut),
          usd_value: String(decoded.args.usdValue),
        },
      };
    case "AbsorbCollateral":
      return {
        design: "comet",
        wallet: lower(decoded.args.borrower),
        liquidator: lower(decoded.args.absorber),
        seized: {
          token: lower(decoded.args.asset),
          amount: String(decoded.args.collateralAbsorbed),
          usd_value: String(decoded.args.usdValue),
        },
      };
  }
};

/**
 * The liquidations of `wallets` in a block's logs, one per (transaction, wallet, market), legs in
 * log order. Whether each emitter really is a market of its design is the caller's to check: any
 * contract can emit these events.
 */
export const liquidationsOf = (
  logs: ReadonlyArray<ChainLog>,
  wallets: ReadonlySet<string>,
): ReadonlyArray<Liquidation> => {
  const out = new Map<string, { -readonly [K in keyof Liquidation]: Liquidation[K] }>();
  for (const log of logs) {
    const found = decodeLiquidation(log);
    if (found === undefined || !wallets.has(found.wallet)) continue;
    const key = `${log.transaction_hash}|${found.wallet}|${log.address}`;
    let held = out.get(key);
    if (held === undefined) {
      held = {
        design: found.design,
        market: log.address,
        wallet: found.wallet,
        liquidator: found.liquidator,
        transactionHash: log.transaction_hash,
        logIndex: log.log_index,
        seized: [],
        repaid: [],
      };
      out.set(key, held);
    }
    if (found.seized !== undefined) held.seized = [...held.seized, found.seized];
    if (found.repaid !== undefined) held.repaid = [...held.repaid, found.repaid];
  }
  return [...out.values()];
};
