import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { decodeInput } from "../../../src/api/decodeInput.js";
import { tokenBalance } from "../../../src/contracts/Balances.js";
import { createWebhook, updateWebhook } from "../../../src/contracts/Webhooks.js";

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

  it("error: an enum-typed parameter or field names every accepted value", () => {
    const wallet = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045";
    const message = <A>(result: Either.Either<A, { message: string }>) =>
      Either.isLeft(result) ? result.left.message : "decoded";
    expect(
      message(decodeInput(tokenBalance, { params: { address: wallet, token_address: "0x12" }, query: {} })),
    ).toBe(
      'path parameter "token_address" must be "native" or an EVM address: 0x followed by 40 hex digits (got "0x12").',
    );
    const body = { name: "n", url: "https://x.example", type: "balances", addresses: [] };
    const create = (fields: Record<string, unknown>) =>
      message(decodeInput(createWebhook, { params: {}, query: {}, body: { ...body, ...fields } }));
    expect(create({ type: "balance" })).toBe(
      'body field "type" must be one of "transactions", "activities", "balances" or "positions" (got "balance").',
    );
    expect(create({ activity_type: "transfer" })).toBe(
      'body field "activity_type" must be one of "approve", "mint", "burn", "receive", "send", "swap", "call" or null (got "transfer").',
    );
    expect(create({ asset_type: 5 })).toBe(
      'body field "asset_type" must be one of "native", "erc20", "erc721", "erc1155" or null (got 5).',
    );
    const update = (fields: Record<string, unknown>) =>
      message(
        decodeInput(updateWebhook, {
          params: { webhookId: "0d9ad0c5-6f5e-4a39-8e8a-8b8a8a8a8a8a" },
          query: {},
          body: fields,
        }),
      );
    expect(update({ transaction_type: "both" })).toBe(
      'body field "transaction_type" must be one of "sender", "receiver" or null (got "both").',
    );
    expect(update({ active: "yes" })).toBe(
      'body field "active" must be one of true, false or null (got "yes").',
    );
    // A failure inside a matching shape points at the item; annotated messages are kept.
    expect(create({ chain_ids: [1, "x"] })).toBe('body field "chain_ids[1]" must be an integer (got "x").');
    expect(update({ type: "activities" })).toMatch(
      /^body field "type" cannot be changed: create a new webhook/,
    );
  });

  it("error: the value given is summed up, never echoed", () => {
    const body = { name: "n", url: "https://x.example", type: "balances", addresses: [] };
    let deep: unknown = [];
    for (let i = 0; i < 30; i++) deep = [deep];
    const messages = [
      decodeInput(createWebhook, { params: {}, query: {}, body: deep }),
      decodeInput(createWebhook, { params: {}, query: {}, body: { ...body, name: deep } }),
      decodeInput(createWebhook, { params: {}, query: {}, body: { ...body, type: "x".repeat(5000) } }),
    ].map((result) => (Either.isLeft(result) ? result.left.message : "decoded"));
    expect(messages).toEqual([
      "The request body must be a JSON object (got an array).",
      'body field "name" must be a string (got an array).',
      `body field "type" must be one of "transactions", "activities", "balances" or "positions" (got "${"x".repeat(40)}…").`,
    ]);
  });
});
