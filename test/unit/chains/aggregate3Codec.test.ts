import fc from "fast-check";
import { decodeFunctionResult, encodeAbiParameters, encodeFunctionData, type Hex, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { decodeAggregate3, encodeAggregate3 } from "../../../src/chains/aggregate3Codec.js";

const abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);

const hexBytes = fc.uint8Array({ maxLength: 200 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((b) => `0x${Buffer.from(b).toString("hex")}`);

describe("aggregate3 codec", () => {
  it("behavior: encodes exactly as viem's ABI encoder", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ target: address, callData: hexBytes }), { maxLength: 20 }),
        (calls) => {
          const ours = encodeAggregate3(calls);
          const viems = encodeFunctionData({
            abi,
            functionName: "aggregate3",
            args: [calls.map((c) => ({ target: c.target as Hex, allowFailure: true, callData: c.callData }))],
          });
          expect(ours).toBe(viems);
        },
      ),
    );
  });

  it("behavior: decodes exactly as viem's ABI decoder", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ success: fc.boolean(), returnData: hexBytes }), { maxLength: 20 }),
        (results) => {
          const data = encodeAbiParameters(
            [
              {
                type: "tuple[]",
                components: [
                  { type: "bool", name: "success" },
                  { type: "bytes", name: "returnData" },
                ],
              },
            ],
            [results],
          );
          expect(decodeAggregate3(data)).toEqual(
            decodeFunctionResult({ abi, functionName: "aggregate3", data }),
          );
        },
      ),
    );
  });
});
