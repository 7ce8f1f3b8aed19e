import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { decodeInput } from "../../../src/api/decodeInput.js";
import { tokenBalance } from "../../../src/contracts/Balances.js";
import { createWebhook } from "../../../src/contracts/Webhooks.js";

const run = <A, E>(result: Either.Either<A, E>) => result;

describe("decodeInput", () => {
  it("default: path parameters decode (addresses to lower case), unknown query parameters are ignored", () => {
    const result = run(
      decodeInput(tokenBalance, {
        params: { address: "0xD8DA6BF26964AF9D7EED9E03E53415D37AA96045", token_address: "native" },
        query: { chain_ids: "1", exclude_unpriced: "true" },
      }),
    );
    expect(result).toEqual(
      Either.right({
        params: { address: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", token_address: "native" },
        query: { chain_ids: "1" },
        body: undefined,
      }),
    );
  });

  it("error: the message names the parameter or field and what is wrong", () => {
    const badPath = run(
      decodeInput(tokenBalance, { params: { address: "0x12", token_address: "native" }, query: {} }),
    );
    expect(Either.isLeft(badPath) && badPath.left).toMatchObject({
      code: "INVALID_PATH_PARAMETER",
      message: 'path parameter "address" must be an EVM address: 0x followed by 40 hex digits.',
    });
    const body = { name: "n", url: "https://x.example", type: "balances", addresses: ["0x1"] };
    const badBody = run(decodeInput(createWebhook, { params: {}, query: {}, body }));
    expect(Either.isLeft(badBody) && badBody.left.message).toBe(
      'body field "addresses[0]" must be an EVM address: 0x followed by 40 hex digits.',
    );
    const unknownField = run(
      decodeInput(createWebhook, { params: {}, query: {}, body: { ...body, addresses: [], colour: "red" } }),
    );
    expect(Either.isLeft(unknownField) && unknownField.left.message).toBe(
      'body field "colour" is not a known field.',
    );
    const missing = run(decodeInput(createWebhook, { params: {}, query: {} }));
    expect(Either.isLeft(missing) && missing.left.code).toBe("MISSING_BODY");
    const notObject = run(decodeInput(createWebhook, { params: {}, query: {}, body: [1, 2] }));
    expect(Either.isLeft(notObject) && notObject.left.code).toBe("INVALID_BODY");
  });
});
