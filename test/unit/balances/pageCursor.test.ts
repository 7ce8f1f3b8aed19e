import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../../src/balances/pageCursor.js";

const secret = randomBytes(32);
const state = {
  wallet: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
  query: "q",
  blocks: [[1, 100] as const, [8453, 200] as const],
  after: [12.5, 1, "0xabc"] as const,
  issued: 1_700_000_000,
};

describe("page cursor", () => {
  it("default: a cursor we issued decodes to its state", () => {
    expect(decodeCursor(secret, encodeCursor(secret, state))).toEqual(state);
  });

  it("error: forged, tampered, truncated or foreign cursors are refused", () => {
    const cursor = encodeCursor(secret, state);
    const [payload, mac] = cursor.split(".");
    const tampered = Buffer.from(JSON.stringify([1, state.wallet, "q", [[1, 1]], state.after])).toString(
      "base64url",
    );
    for (const bad of [
      `${tampered}.${mac}`,
      cursor.slice(0, -2),
      payload!,
      "",
      "abc.def",
      encodeCursor(randomBytes(32), state),
    ]) {
      expect(decodeCursor(secret, bad), bad).toBeUndefined();
    }
  });
});
