import { describe, expect, it } from "vitest";
import { walletsNamed } from "../../../src/webhooks/alerts/walletsNamed.js";
import { alertBlock, logOf, word } from "../../support/alertBlocks.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const WALLET = address(0xaa);
const OTHER = address(0xbb);
const CTOKEN = address(0xc1);
const TOPIC0 = `0x${"e".repeat(64)}`;
const wallets = new Set([WALLET, OTHER]);

describe("wallets a block names", () => {
  it("default: a transaction's sender", () => {
    expect([...walletsNamed(alertBlock(1, { senders: [WALLET] }), wallets)]).toEqual([WALLET]);
  });

  it("behavior: an address in a topic, and one in a data word (Compound V2's Borrow names its borrower there)", () => {
    const indexed = logOf(CTOKEN, [TOPIC0, word(OTHER)]);
    const inData = logOf(CTOKEN, [TOPIC0], [word(WALLET), `0x${"0".repeat(60)}1234`]);
    expect(walletsNamed(alertBlock(1, { logs: [indexed] }), wallets)).toEqual(new Set([OTHER]));
    expect(walletsNamed(alertBlock(1, { logs: [inData] }), wallets)).toEqual(new Set([WALLET]));
  });

  it("behavior: the topic0 selector, amounts and unwatched addresses name nobody", () => {
    const log = logOf(CTOKEN, [word(WALLET), word(address(0xcc))], [`0x${"f".repeat(64)}`]);
    expect(walletsNamed(alertBlock(1, { logs: [log], senders: [address(0xdd)] }), wallets).size).toBe(0);
  });
});
