import type { ChainNodeStatus, RpcEndpointStatus } from "../src/contracts/RpcStatus.js";
import type { ChainRows } from "./AdminClient.js";
import { age, compact } from "./format.js";

type ChainRow = ChainRows[number];

const dash = (n: number | null) => (n === null ? "-" : String(n));
const yesNo = (flag: boolean | null) => (flag === null ? "-" : flag ? "yes" : "no");

/** The first block with state: `archive` when it is the genesis block, `-` until probed. */
const stateFrom = (block: number | null) => (block === 0 ? "archive" : dash(block));

export const HEALTH_COLUMNS = [
  { header: "ENDPOINT", shrink: true, min: 12 },
  { header: "STATE" },
  { header: "HEAD", align: "right" as const },
  { header: "LAG", align: "right" as const },
  { header: "LATENCY", align: "right" as const },
  { header: "LIMIT", align: "right" as const },
  { header: "REQ", align: "right" as const },
  { header: "ERR", align: "right" as const },
];

/** ENDPOINT, STATE, HEAD, LAG, LATENCY, LIMIT (the rate in force), REQ, ERR of each endpoint. */
export const healthCells = (
  endpoints: ReadonlyArray<RpcEndpointStatus>,
): ReadonlyArray<ReadonlyArray<string>> =>
  endpoints.map((e) => [
    e.url,
    e.state,
    dash(e.head),
    dash(e.lag),
    e.latency_ms === null ? "-" : `${e.latency_ms}ms`,
    e.rate_limit_rps === null ? "-" : `${e.rate_limit_rps}/s`,
    compact(e.requests),
    compact(e.errors),
  ]);

export const CAPABILITY_COLUMNS = [
  { header: "ENDPOINT", shrink: true, min: 12 },
  { header: "STATE FROM", align: "right" as const },
  { header: "LOGS FROM", align: "right" as const },
  { header: "TRACES" },
  { header: "RECEIPTS" },
  { header: "PROBED", align: "right" as const },
];

/** The label of the row of what the chain's endpoints serve together. */
const ANY_ENDPOINT = "(any endpoint)";

/**
 * ENDPOINT, STATE FROM, LOGS FROM, TRACES, RECEIPTS, PROBED (how long ago) of each endpoint; with
 * several endpoints, a last row of what some endpoint serves, which is what the chain can answer.
 */
export const capabilityCells = (
  node: ChainNodeStatus,
  endpoints: ReadonlyArray<RpcEndpointStatus>,
  now = Date.now(),
): ReadonlyArray<ReadonlyArray<string>> => [
  ...endpoints.map((e) => [
    e.url,
    stateFrom(e.state_from_block),
    dash(e.logs_from_block),
    yesNo(e.traces),
    yesNo(e.block_receipts),
    age(e.probed_at, now),
  ]),
  ...(node.endpoints.length > 1
    ? [
        [
          ANY_ENDPOINT,
          stateFrom(node.state_from_block),
          dash(node.logs_from_block),
          yesNo(node.traces),
          "",
          "",
        ],
      ]
    : []),
];

/** Endpoints that need a look (red): failing, on another chain, or behind the others. */
export const isTroubled = (e: RpcEndpointStatus) =>
  e.state === "failing" || e.state === "wrong_chain" || e.state === "lagging";

/** Why each failing endpoint fails, for the lines under the tables. */
export const endpointProblems = (endpoints: ReadonlyArray<RpcEndpointStatus>): ReadonlyArray<string> =>
  endpoints.flatMap((e) =>
    e.state === "failing" || e.state === "wrong_chain"
      ? [`${e.url}: ${e.last_error ?? (e.state === "wrong_chain" ? "serves another chain" : "no answer")}`]
      : [],
  );

/** The chain's traces mode (internal native transfers), in red when configured but served by no endpoint. */
export const tracesNote = (
  chain: ChainRow,
): { readonly text: string; readonly alert: boolean } | undefined =>
  chain.traces === undefined
    ? undefined
    : chain.traces === "unavailable"
      ? { text: "traces configured, no endpoint serves them", alert: true }
      : { text: `traces ${chain.traces}`, alert: false };

/**
 * The blocks the follower skipped because no endpoint keeps them, a line each: history before its
 * first start, and the last run of live blocks pruned before it got to them; and the last run it
 * read without traces because their state was gone.
 */
export const skippedHistory = (chain: ChainRow): ReadonlyArray<string> => [
  ...(chain.history_skipped == null
    ? []
    : [
        `history ${chain.history_skipped.from}-${chain.history_skipped.to} not read: no endpoint keeps its logs`,
      ]),
  ...(chain.blocks_skipped === undefined
    ? []
    : [
        `blocks ${chain.blocks_skipped.from}-${chain.blocks_skipped.to} not read: pruned before ingest got to them`,
      ]),
  ...(chain.blocks_untraced === undefined
    ? []
    : [
        `blocks ${chain.blocks_untraced.from}-${chain.blocks_untraced.to} read without internal transfers: their state was gone`,
      ]),
];
