import { Effect, Either } from "effect";
import {
  getWebhookAddresses,
  replaceWebhookAddresses,
  updateWebhookAddresses,
} from "../../../contracts/Webhooks.js";
import {
  applyAddressChanges,
  checkList,
  checkPerCall,
  normaliseAddresses,
} from "../../../webhooks/addressList.js";
import { decodeCursor, pageOf, parseLimit } from "../../../webhooks/paging.js";
import { WebhookPolicy } from "../../../webhooks/WebhookPolicy.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";
import { discoverWatchedBy, forgetWatched } from "./discoverWatched.js";

const isAddress = (key: string) => /^0x[0-9a-f]{40}$/.test(key);

/** GET .../{webhookId}/addresses: the subscribed addresses, lower-case and sorted, cursor-paged. 0 CU. */
export const getAddressesRoute = route(getWebhookAddresses, ({ params, query }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const limit = parseLimit(query.limit);
    if (typeof limit !== "number") return yield* limit;
    const after = decodeCursor(query.offset, isAddress);
    if (typeof after === "object") return yield* after;
    const all = yield* (yield* WebhookStore).addresses(teamId, normaliseId(params.webhookId));
    const page = pageOf(all, (address) => address, after, limit);
    return {
      cu: 0,
      body: { addresses: page.items, ...(page.next === undefined ? {} : { next_offset: page.next }) },
    };
  }),
);

/** PUT .../{webhookId}/addresses: replaces the whole list; 200 with an empty body. 0 CU. */
export const replaceAddressesRoute = route(replaceWebhookAddresses, ({ params, body }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const { addresses: limits } = yield* WebhookPolicy;
    const perCall = checkPerCall("addresses", body.addresses, limits);
    if (perCall !== undefined) return yield* perCall;
    const next = normaliseAddresses(body.addresses);
    const listError = checkList("addresses", next, limits);
    if (listError !== undefined) return yield* listError;
    const id = normaliseId(params.webhookId);
    let before: ReadonlyArray<string> = [];
    yield* (yield* WebhookStore).changeAddresses(teamId, id, (current) => {
      before = current;
      return Either.right(next);
    });
    const kept = new Set(next);
    yield* forgetWatched(
      id,
      before.filter((address) => !kept.has(address)),
    );
    yield* discoverWatchedBy(teamId, id, next);
    return { cu: 0, body: "" };
  }),
);

/** PATCH .../{webhookId}/addresses: removes `remove_addresses`, then adds `add_addresses`; empty 200. 0 CU. */
export const updateAddressesRoute = route(updateWebhookAddresses, ({ params, body }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const { addresses: limits } = yield* WebhookPolicy;
    const add = body.add_addresses ?? [];
    const remove = body.remove_addresses ?? [];
    const perCall =
      checkPerCall("add_addresses", add, limits) ?? checkPerCall("remove_addresses", remove, limits);
    if (perCall !== undefined) return yield* perCall;
    const id = normaliseId(params.webhookId);
    yield* (yield* WebhookStore).changeAddresses(teamId, id, (current) => {
      const next = applyAddressChanges(current, add, remove);
      const error = checkList(next.length === 0 ? "remove_addresses" : "add_addresses", next, limits);
      return error === undefined ? Either.right(next) : Either.left(error);
    });
    const added = normaliseAddresses(add);
    const readded = new Set(added);
    yield* forgetWatched(
      id,
      normaliseAddresses(remove).filter((address) => !readded.has(address)),
    );
    yield* discoverWatchedBy(teamId, id, added);
    return { cu: 0, body: "" };
  }),
);
