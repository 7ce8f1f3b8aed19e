import { InvalidRequest } from "../contracts/ApiError.js";
import { POSITION_TYPES } from "../contracts/Webhooks.js";
import type { WebhookSettings } from "./WebhookRecord.js";

const fieldError = (field: string, reason: string) =>
  new InvalidRequest({ code: "INVALID_BODY", message: `body field "${field}" ${reason}.` });

/** Most protocol names an error lists before it says how many more there are. */
const LISTED = 30;

const listed = (names: ReadonlyArray<string>) =>
  names.length <= LISTED
    ? names.join(", ")
    : `${names.slice(0, LISTED).join(", ")} and ${names.length - LISTED} more`;

/**
 * `position_types`: `null` (every type) or a non-empty list, stored deduplicated in the positions
 * endpoint's order of types. The schema already refused names it does not know.
 */
export const normalisePositionTypes = (
  types: WebhookSettings["position_types"],
): InvalidRequest | WebhookSettings["position_types"] => {
  if (types === null) return null;
  if (types.length === 0) return fieldError("position_types", "must not be empty; use null for every type");
  const given = new Set(types);
  return POSITION_TYPES.filter((type) => given.has(type));
};

/**
 * `protocols`: `null` (every protocol) or a non-empty list of protocol names as positions show
 * them. Where the deployment's protocol registry is known (`known`), each name must be one of it,
 * in any case, and is stored in the registry's spelling, so a misspelt name is refused instead of
 * silently matching nothing; without it, names are kept as given. Deduplicated either way.
 */
export const normaliseProtocols = (
  names: WebhookSettings["protocols"],
  known: ReadonlySet<string> | undefined,
): InvalidRequest | WebhookSettings["protocols"] => {
  if (names === null) return null;
  if (names.length === 0) return fieldError("protocols", "must not be empty; use null for every protocol");
  if (known === undefined) return [...new Set(names)];
  const byLower = new Map([...known].map((name) => [name.toLowerCase(), name]));
  const unknown = names.filter((name) => !byLower.has(name.toLowerCase()));
  if (unknown.length > 0) {
    const allowed = [...known].sort();
    return fieldError(
      "protocols",
      allowed.length === 0
        ? "cannot be used: this deployment's chains register no protocol"
        : `contains ${JSON.stringify(unknown[0]!.slice(0, 40))}, not a protocol of this deployment (known: ${listed(allowed)})`,
    );
  }
  return [...new Set(names.map((name) => byLower.get(name.toLowerCase())!))];
};

/**
 * The settings with the `position_types` and `protocols` the request set (`touched`) normalised;
 * those it left as stored stay as they are (a registry changed since does not fail a rename).
 */
export const normalisePositionFilters = <S extends Pick<WebhookSettings, "position_types" | "protocols">>(
  settings: S,
  known: ReadonlySet<string> | undefined,
  touched: ReadonlySet<string>,
): InvalidRequest | S => {
  const types = touched.has("position_types")
    ? normalisePositionTypes(settings.position_types)
    : settings.position_types;
  if (types instanceof InvalidRequest) return types;
  const protocols = touched.has("protocols")
    ? normaliseProtocols(settings.protocols, known)
    : settings.protocols;
  if (protocols instanceof InvalidRequest) return protocols;
  return { ...settings, position_types: types, protocols };
};
