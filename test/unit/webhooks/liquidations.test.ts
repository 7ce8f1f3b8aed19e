import { encodeAbiParameters, encodeEventTopics, parseAbi, parseAbiParameters } from "viem";
import { describe, expect, it } from "vitest";
import type { ChainLog } from "../../../src/domain/ChainBlock.js";
import { liquidationsOf } from "../../../src/webhooks/alerts/liquidations.js";

const abi = parseAbi([
  "event LiquidateBorrow(address liquidator, address borrower, uint256 repayAmount, address cTokenCollateral, uint256 seizeTokens)",
  "event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue)",
  "event AbsorbCollateral(address indexed absorber, address indexed borrower, address indexed asset, uint256 collateralAbsorbed, uint256 usdValue)",
]);
const WALLET = "0x00000000000000000000000000000000000000aa";
const LIQUIDATOR = "0x00000000000000000000000000000000000000cc";
const CTOKEN = "0x0000000000000000000000000000000000000c01";
const CCOLLATERAL = "0x0000000000000000000000000000000000000c02";
const COMET = "0x0000000000000000000000000000000000000c03";
const WETH = "0x0000000000000000000000000000000000000e01";
const WBTC = "0x0000000000000000000000000000000000000e02";
const TX = `0x${"1".repeat(64)}`;

const log = (address: string, logIndex: number, topics: ReadonlyArray<unknown>, data: string): ChainLog =>
  ({ transaction_hash: TX, transaction_index: 0, log_index: logIndex, address, topics, data }) as ChainLog;

describe("liquidation events", () => {
  it("default: a cToken LiquidateBorrow of a watched wallet gives its repaid and seized amounts", () => {
    const topics = encodeEventTopics({ abi, eventName: "LiquidateBorrow" });
    const data = encodeAbiParameters(parseAbiParameters("address, address, uint256, address, uint256"), [
      LIQUIDATOR,
      WALLET,
      500n,
      CCOLLATERAL,
      12345n,
    ]);
    expect(liquidationsOf([log(CTOKEN, 3, topics, data)], new Set([WALLET]))).toEqual([
      {
        design: "ctoken",
        market: CTOKEN,
        wallet: WALLET,
        liquidator: LIQUIDATOR,
        transactionHash: TX,
        logIndex: 3,
        seized: [{ token: CCOLLATERAL, amount: "12345" }],
        repaid: [{ token: CTOKEN, amount: "500" }],
      },
    ]);
    expect(liquidationsOf([log(CTOKEN, 3, topics, data)], new Set([LIQUIDATOR]))).toEqual([]);
  });

  it("behavior: a Comet absorb's debt and every collateral taken make one liquidation", () => {
    const debt = log(
      COMET,
      1,
      encodeEventTopics({ abi, eventName: "AbsorbDebt", args: { absorber: LIQUIDATOR, borrower: WALLET } }),
      encodeAbiParameters(parseAbiParameters("uint256, uint256"), [900n, 90000n]),
    );
    const collateral = (asset: string, i: number, amount: bigint) =>
      log(
        COMET,
        i,
        encodeEventTopics({
          abi,
          eventName: "AbsorbCollateral",
          args: { absorber: LIQUIDATOR, borrower: WALLET, asset: asset as `0x${string}` },
        }),
        encodeAbiParameters(parseAbiParameters("uint256, uint256"), [amount, 1n]),
      );
    const [found, ...rest] = liquidationsOf(
      [collateral(WETH, 0, 7n), collateral(WBTC, 2, 8n), debt],
      new Set([WALLET]),
    );
    expect(rest).toEqual([]);
    expect(found).toMatchObject({
      design: "comet",
      market: COMET,
      logIndex: 0,
      seized: [
        { token: WETH, amount: "7", usd_value: "1" },
        { token: WBTC, amount: "8", usd_value: "1" },
      ],
      repaid: [{ token: COMET, amount: "900", usd_value: "90000" }],
    });
  });

  it("edge: a log with a liquidation's hash but other fields, or none, is not a liquidation", () => {
    const topics = encodeEventTopics({ abi, eventName: "LiquidateBorrow" });
    expect(liquidationsOf([log(CTOKEN, 0, topics, "0x1234")], new Set([WALLET]))).toEqual([]);
    expect(liquidationsOf([log(CTOKEN, 0, [], "0x")], new Set([WALLET]))).toEqual([]);
  });
});
