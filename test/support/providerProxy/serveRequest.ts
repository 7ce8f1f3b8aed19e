import { batchTooLarge, emptyBatch, invalidElement } from "./batchRefusals.js";
import { outcomeOf } from "./callRules.js";
import { ChainView } from "./chainView.js";
import {
  errorResponse,
  type Final,
  isCall,
  isNotification,
  type Outcome,
  type RpcCall,
  type RpcResponse,
  responseOf,
} from "./jsonRpc.js";
import type { StatsRecorder } from "./proxyStats.js";
import type { RateLimiter } from "./rateLimiter.js";
import { rateLimitedElement, rateLimitedRequest } from "./rateRefusals.js";
import type { RuleContext } from "./ruleContext.js";
import type { Settings } from "./settings.js";
import type { RawReply, Upstream } from "./upstream.js";

export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Everything serving one HTTP request needs; `settings` is fixed for the request's whole life. */
export interface ServeContext {
  readonly settings: Settings;
  readonly upstream: Upstream;
  readonly limiter: RateLimiter | undefined;
  readonly stats: StatsRecorder;
}

const JSON_HEADERS = { "content-type": "application/json" };

const jsonReply = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): HttpReply => ({
  status,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(body),
});

/** A JSON-RPC notification is answered by silence, even when refused. */
const NOTHING: HttpReply = { status: 200, headers: {}, body: "" };

const relayRaw = (reply: RawReply): HttpReply => ({
  status: reply.status,
  headers: { "content-type": reply.contentType },
  body: reply.body,
});

/** A rule that fails (upstream gone mid-lookup) answers like a node's internal error, never crashes. */
const settle = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  try {
    return await outcomeOf(call, context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { type: "relay", response: errorResponse(call.id, { code: -32603, message }) };
  }
};

const finishWith = async (
  outcome: Outcome,
  response: RpcResponse | undefined,
): Promise<Final | undefined> => {
  if (outcome.type !== "forward") return outcome;
  if (response === undefined) return undefined;
  return outcome.finish === undefined ? { type: "relay", response } : outcome.finish(response);
};

const rateState = (context: ServeContext, calls: number) => ({
  retryAfterSeconds: context.limiter?.retryAfterSeconds(calls) ?? 1,
  currentRps: context.limiter?.currentRps() ?? 0,
  allowedRps: context.limiter?.rps ?? 0,
});

const serveSingle = async (call: RpcCall, raw: string, context: ServeContext): Promise<HttpReply> => {
  const { settings, stats, upstream } = context;
  stats.element(call.method);
  if (context.limiter !== undefined && context.limiter.admit(1, true) === 0) {
    stats.refused("rate");
    return rateLimitedRequest(settings.style, call.id ?? null, rateState(context, 1));
  }
  const outcome = await settle(call, { settings, view: new ChainView(upstream, settings) });
  if (outcome.type === "forward" && outcome.finish === undefined) {
    // Untouched calls keep upstream's exact bytes and status.
    return relayRaw(await upstream.post(outcome.call === call ? raw : JSON.stringify(outcome.call)));
  }
  const response = outcome.type === "forward" ? (await upstream.send([outcome.call]))[0] : undefined;
  const final = await finishWith(outcome, response);
  if (final === undefined || isNotification(call)) return NOTHING;
  if (final.type !== "refuse") return jsonReply(200, responseOf(call.id, final));
  stats.refused(final.refusal.kind);
  return jsonReply(final.refusal.httpStatus ?? 200, responseOf(call.id, final), final.refusal.headers);
};

const serveBatch = async (
  batch: ReadonlyArray<unknown>,
  raw: string,
  context: ServeContext,
): Promise<HttpReply> => {
  const { settings, stats, upstream, limiter } = context;
  for (const element of batch) stats.element(isCall(element) ? element.method : undefined);
  if (batch.length === 0) {
    const empty = emptyBatch(settings.style);
    return empty === undefined ? relayRaw(await upstream.post(raw)) : jsonReply(empty.status, empty.body);
  }
  if (settings.maxBatch !== undefined && batch.length > settings.maxBatch) {
    stats.refused("batch");
    const tooLarge = batchTooLarge(settings.style, settings.maxBatch, batch);
    return jsonReply(tooLarge.status, tooLarge.body);
  }
  const perElement = rateLimitedElement(settings.style);
  const admitted =
    limiter === undefined ? batch.length : limiter.admit(batch.length, perElement === undefined);
  if (admitted === 0 && perElement === undefined) {
    stats.refused("rate");
    return rateLimitedRequest(settings.style, null, rateState(context, batch.length));
  }

  // Each element is either answered at once (not a call, or over the rate) or judged by the rules.
  type Judged = { readonly reply: RpcResponse } | { readonly call: RpcCall; readonly outcome: Outcome };
  const ruleContext: RuleContext = { settings, view: new ChainView(upstream, settings) };
  const judged = await Promise.all(
    batch.map(async (element, i): Promise<Judged> => {
      if (!isCall(element)) return { reply: invalidElement(settings.style) };
      if (i >= admitted && perElement !== undefined) {
        return { call: element, outcome: { type: "refuse", refusal: { kind: "rate", error: perElement } } };
      }
      return { call: element, outcome: await settle(element, ruleContext) };
    }),
  );
  const forwarded = judged.flatMap((j) =>
    "outcome" in j && j.outcome.type === "forward" ? [j.outcome.call] : [],
  );
  const upstreamReplies = forwarded.length === 0 ? [] : await upstream.send(forwarded);
  let next = 0;
  const replies: RpcResponse[] = [];
  for (const j of judged) {
    if ("reply" in j) {
      replies.push(j.reply);
      continue;
    }
    const response = j.outcome.type === "forward" ? upstreamReplies[next++] : undefined;
    const final = await finishWith(j.outcome, response);
    if (isNotification(j.call)) continue;
    if (final === undefined) {
      replies.push(errorResponse(j.call.id, { code: -32603, message: "upstream gave no answer" }));
      continue;
    }
    if (final.type === "refuse") stats.refused(final.refusal.kind);
    replies.push(responseOf(j.call.id, final));
  }
  return replies.length === 0 ? NOTHING : jsonReply(200, replies);
};

/**
 * Serves one HTTP request body as the emulated node would. A body that is not JSON, or JSON that is
 * neither a call nor a batch, goes upstream untouched so the reply is a real node's.
 */
export const serveRequest = async (raw: string, context: ServeContext): Promise<HttpReply> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    context.stats.request(undefined);
    return relayRaw(await context.upstream.post(raw));
  }
  context.stats.request(Array.isArray(parsed) ? parsed.length : undefined);
  if (Array.isArray(parsed)) return serveBatch(parsed, raw, context);
  if (isCall(parsed)) return serveSingle(parsed, raw, context);
  context.stats.element(undefined);
  return relayRaw(await context.upstream.post(raw));
};
