import { type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { Schema } from "effect";
import { type BalancesResponse, balances } from "../src/contracts/Balances.js";
import { supportedChains } from "../src/contracts/Chains.js";
import type { AnyEndpoint } from "../src/contracts/Endpoint.js";
import { HEADER } from "../src/contracts/Envelope.js";
import { type DefiPositionsResponse, defiPositions } from "../src/contracts/Positions.js";
import type { OperatorKey } from "./operatorKey.js";

/** What the Wallet screen shows of one address: its balances and positions on every chain serving them. */
export interface WalletView {
  readonly address: string;
  readonly balances: BalancesResponse | undefined;
  readonly positions: DefiPositionsResponse | undefined;
  /** Why a part could not be read (the other part may still be there). */
  readonly problems: ReadonlyArray<string>;
  /** CU the lookup cost the operator team. */
  readonly cu: number;
  /** Chain names by id, for the rows. */
  readonly chainNames: ReadonlyMap<number, string>;
}

const CALL_TIMEOUT_MS = 20_000;

interface Answer {
  readonly status: number;
  readonly cu: number;
  readonly json: unknown;
}

/** One request on an endpoint's NATS subject, as the gateway would send it. */
const request = async (
  nc: NatsConnection,
  endpoint: AnyEndpoint,
  envelope: { params: Record<string, string>; query: Record<string, string> },
  key: string | undefined,
): Promise<Answer> => {
  const h = natsHeaders();
  h.set(HEADER.requestId, `tui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  if (key !== undefined) h.set(HEADER.apiKey, key);
  const reply = await nc.request(endpoint.subject, JSON.stringify(envelope), {
    timeout: CALL_TIMEOUT_MS,
    headers: h,
  });
  return {
    status: Number(reply.headers?.get(HEADER.status) || "200"),
    cu: Number(reply.headers?.get(HEADER.computeUnits) || "0"),
    json: reply.json(),
  };
};

const errorText = (answer: Answer) => {
  const body = answer.json as { error?: unknown } | null;
  return typeof body?.error === "string" ? body.error : `status ${answer.status}`;
};

/**
 * Looks a wallet up through the API's own subjects (the operator UI's NATS user
 * may call them), on every chain that serves each endpoint, with the operator
 * team's key: metered, rate-limited and logged like any client's request. A key
 * the service refuses is renewed once.
 */
export const makeWalletLookup =
  (connection: () => Promise<NatsConnection>, operatorKey: OperatorKey) =>
  async (address: string): Promise<WalletView> => {
    const nc = await connection();
    const chains = await request(nc, supportedChains, { params: {}, query: {} }, undefined);
    if (chains.status !== 200) throw new Error(`supported chains: ${errorText(chains)}`);
    const list = Schema.decodeUnknownSync(supportedChains.response)(chains.json).chains;
    const ids = (family: "balances" | "defi_positions") =>
      list.filter((c) => c[family].supported).map((c) => c.chain_id);

    const ask = async (endpoint: AnyEndpoint, chainIds: ReadonlyArray<number>) => {
      const envelope = { params: { address }, query: { chain_ids: chainIds.join(",") } };
      const first = await request(nc, endpoint, envelope, await operatorKey.get());
      return first.status === 401 ? request(nc, endpoint, envelope, await operatorKey.renew()) : first;
    };
    const problems: Array<string> = [];
    const read = async <A>(endpoint: AnyEndpoint, chainIds: ReadonlyArray<number>, what: string) => {
      if (chainIds.length === 0) return { value: undefined, cu: 0 };
      const answer = await ask(endpoint, chainIds);
      if (answer.status !== 200) {
        problems.push(`${what}: ${errorText(answer)}`);
        return { value: undefined, cu: answer.cu };
      }
      return { value: Schema.decodeUnknownSync(endpoint.response)(answer.json) as A, cu: answer.cu };
    };
    // One after the other: a renewed key is then shared instead of two being made at once.
    const held = await read<BalancesResponse>(balances, ids("balances"), "balances");
    const positions = await read<DefiPositionsResponse>(defiPositions, ids("defi_positions"), "positions");
    return {
      address,
      balances: held.value,
      positions: positions.value,
      problems,
      cu: held.cu + positions.cu,
      chainNames: new Map(list.map((c) => [c.chain_id, c.name])),
    };
  };
