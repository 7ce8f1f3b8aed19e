import { Either } from "effect";
import { InvalidRequest } from "../contracts/ApiError.js";
import type { CreateWebhookBody } from "../contracts/Webhooks.js";
import { checkList, checkPerCall, normaliseAddresses } from "./addressList.js";
import { normalisePositionFilters } from "./positionFilterNames.js";
import { checkFilters, checkName, checkUrl, normaliseChainIds } from "./validateSettings.js";
import type { WebhookPolicy } from "./WebhookPolicy.js";
import { optionalFilters, type WebhookSettings } from "./WebhookRecord.js";

type Policy = WebhookPolicy["Type"];

/** A create request that passed every rule: the settings to store and the normalised address list. */
export interface ValidCreate {
  readonly settings: WebhookSettings;
  readonly addresses: ReadonlyArray<string>;
}

/**
 * Checks a create body beyond its schema (which already checked types, enums
 * and address syntax): name, url policy, address caps, supported chains, and
 * which filters the type allows. The first failure is a 400 naming its field.
 */
export const validateCreate = (
  body: typeof CreateWebhookBody.Type,
  policy: Policy,
): Either.Either<ValidCreate, InvalidRequest> => {
  const simple =
    checkName(body.name) ??
    checkUrl(body.url, policy.url) ??
    checkPerCall("addresses", body.addresses, policy.addresses);
  if (simple !== undefined) return Either.left(simple);
  const addresses = normaliseAddresses(body.addresses);
  const listError = checkList("addresses", addresses, policy.addresses);
  if (listError !== undefined) return Either.left(listError);
  const chainIds = normaliseChainIds(body.chain_ids ?? null, policy.chainIds);
  if (chainIds instanceof InvalidRequest) return Either.left(chainIds);
  const settings: WebhookSettings = {
    name: body.name.trim(),
    url: body.url,
    active: true,
    chain_ids: chainIds,
    ...optionalFilters(body, (given) => given ?? null),
  };
  const touched = new Set(Object.keys(body));
  const filterError = checkFilters(body.type, settings, touched);
  if (filterError !== undefined) return Either.left(filterError);
  const named = normalisePositionFilters(settings, policy.protocols, touched);
  return named instanceof InvalidRequest ? Either.left(named) : Either.right({ settings: named, addresses });
};
