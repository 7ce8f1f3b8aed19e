import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_TOPICS } from "../../../src/decoding/abi/eventTopics.js";
import { classifyTransaction } from "../../../src/decoding/activities/classifyTransaction.js";
import { decodeLog, decodeLogs } from "../../../src/decoding/decodeLog.js";
import type { LogLike } from "../../../src/decoding/events/DecodedEvent.js";
import {
  ALICE,
  BOB,
  CAROL,
  CONTEXT,
  EVENTS,
  encodeLog,
  internal,
  PAIR,
  POOL,
  ROUTER,
  TOKEN_A,
  TOKEN_B,
  transaction,
  WETH,
  ZERO,
} from "./fixtures.js";

const knownTopic = fc.constantFrom(...Object.values(EVENT_TOPICS));
const topic = fc.oneof(knownTopic, fc.stringMatching(/^0x[0-9a-f]{64}$/), fc.string({ maxLength: 70 }));
const hexData = fc.stringMatching(/^0x[0-9a-f]{0,600}$/);
const wordData = fc
  .array(fc.stringMatching(/^[0-9a-f]{64}$/), { maxLength: 12 })
  .map((words) => `0x${words.join("")}`);

const randomLog = fc.record({
  address: fc.oneof(
    fc.constant(TOKEN_A),
    fc.stringMatching(/^0x[0-9a-f]{40}$/),
    fc.string({ maxLength: 44 }),
  ),
  topics: fc.oneof(
    fc.array(topic, { maxLength: 5 }),
    fc
      .tuple(knownTopic, fc.array(fc.stringMatching(/^0x[0-9a-f]{64}$/), { maxLength: 4 }))
      .map(([t0, rest]) => [t0, ...rest]),
  ),
  data: fc.oneof(hexData, wordData, fc.string({ maxLength: 200 })),
  log_index: fc.nat(),
  transaction_index: fc.nat(),
  transaction_hash: fc.constant(`0x${"11".repeat(32)}`),
});

/** Real logs of the kinds classification reads, over a handful of addresses so that flows meet. */
const wallet = fc.constantFrom(ALICE, BOB, CAROL, ROUTER, PAIR, POOL, ZERO);
const token = fc.constantFrom(TOKEN_A, TOKEN_B, WETH);
const amount = fc.bigInt({ min: 0n, max: 10n ** 24n });
const realEvent = fc.oneof(
  fc
    .record({ from: wallet, to: wallet, value: amount, token })
    .map((a) => (at: number) => encodeLog(EVENTS.erc20Transfer, a, { logIndex: at, address: a.token })),
  fc
    .record({ owner: wallet, spender: wallet, value: amount, token })
    .map((a) => (at: number) => encodeLog(EVENTS.erc20Approval, a, { logIndex: at, address: a.token })),
  fc
    .record({ dst: wallet, wad: amount })
    .map((a) => (at: number) => encodeLog(EVENTS.deposit, a, { logIndex: at, address: WETH })),
  fc
    .record({ src: wallet, wad: amount })
    .map((a) => (at: number) => encodeLog(EVENTS.withdrawal, a, { logIndex: at, address: WETH })),
  fc
    .record({ amount0In: amount, amount1In: amount, amount0Out: amount, amount1Out: amount, to: wallet })
    .map(
      (a) => (at: number) =>
        encodeLog(EVENTS.v2Swap, { ...a, sender: ROUTER }, { logIndex: at, address: PAIR }),
    ),
);

const realTransaction = fc.record({
  events: fc.array(realEvent, { maxLength: 10 }),
  internal: fc.option(fc.array(fc.tuple(wallet, wallet, amount), { maxLength: 4 }), { nil: null }),
  from: fc.constantFrom(ALICE, BOB),
  value: amount,
  input: fc.constantFrom("0x", "0x38ed1739", "0x01"),
  success: fc.boolean(),
});

describe("properties", () => {
  it("behavior: decodeLog never throws on arbitrary logs, and what it decodes has its kind and position", () => {
    fc.assert(
      fc.property(randomLog, (log: LogLike) => {
        const event = decodeLog(log);
        if (event !== undefined) {
          expect(event.logIndex).toBe(log.log_index);
          expect(event.address).toBe(log.address);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("behavior: classification is deterministic, independent of event order, and its ids are unique", () => {
    fc.assert(
      fc.property(realTransaction, fc.infiniteStream(fc.nat()), (t, seeds) => {
        const logs = t.events.map((make, k) => make(k * 2));
        const tx = transaction({
          from: t.from,
          value: t.value.toString(),
          input: t.input,
          success: t.success,
        });
        const traces = t.internal === null ? null : t.internal.map(([from, to, v]) => internal(from, to, v));
        const events = decodeLogs(logs);
        const shuffled = [...events].sort(() => (seeds.next().value % 3) - 1);
        const run = (options: { wrappedNative?: string }) => [
          classifyTransaction(CONTEXT, tx, events, traces, options),
          classifyTransaction(CONTEXT, tx, events, traces, options),
          classifyTransaction(CONTEXT, tx, shuffled, traces, options),
        ];
        for (const options of [{}, { wrappedNative: WETH }]) {
          const [first, second, reordered] = run(options);
          expect(second).toEqual(first);
          expect(reordered).toEqual(first);
          expect(new Set(first!.map((a) => a.activity_id)).size).toBe(first!.length);
          expect(first!.filter((a) => a.type === "swap").length).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
