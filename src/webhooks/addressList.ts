import { InvalidRequest } from "../contracts/ApiError.js";

/** Caps on address lists, from WEBHOOK_MAX_ADDRESSES and WEBHOOK_MAX_ADDRESSES_PER_CALL. */
export interface AddressLimits {
  readonly perWebhook: number;
  readonly perCall: number;
}

const tooMany = (message: string) => new InvalidRequest({ code: "TOO_MANY_ADDRESSES", message });

/** Rejects a request array longer than the per-call cap (before any work is done on it). */
export const checkPerCall = (
  field: string,
  addresses: ReadonlyArray<string>,
  limits: AddressLimits,
): InvalidRequest | undefined =>
  addresses.length > limits.perCall
    ? tooMany(
        `body field "${field}" has ${addresses.length} addresses; at most ${limits.perCall} are accepted per request (WEBHOOK_MAX_ADDRESSES_PER_CALL).`,
      )
    : undefined;

/** A webhook's whole list after a change: non-empty and within the per-webhook cap. */
export const checkList = (
  field: string,
  addresses: ReadonlyArray<string>,
  limits: AddressLimits,
): InvalidRequest | undefined => {
  if (addresses.length === 0) {
    return new InvalidRequest({
      code: "INVALID_BODY",
      message: `body field "${field}" would leave the webhook without addresses; a webhook needs at least one (delete the webhook instead).`,
    });
  }
  return addresses.length > limits.perWebhook
    ? tooMany(
        `body field "${field}" would give the webhook ${addresses.length} addresses; at most ${limits.perWebhook} are allowed (WEBHOOK_MAX_ADDRESSES).`,
      )
    : undefined;
};

/** Lower-case (already, from the schema), deduplicated and sorted, which makes paging by cursor stable. */
export const normaliseAddresses = (addresses: Iterable<string>): ReadonlyArray<string> =>
  [...new Set([...addresses].map((a) => a.toLowerCase()))].sort();

/** Removals first, then additions (compatible API 8.1). */
export const applyAddressChanges = (
  current: ReadonlyArray<string>,
  add: ReadonlyArray<string>,
  remove: ReadonlyArray<string>,
): ReadonlyArray<string> => {
  const next = new Set(current);
  for (const address of remove) next.delete(address.toLowerCase());
  for (const address of add) next.add(address.toLowerCase());
  return normaliseAddresses(next);
};
