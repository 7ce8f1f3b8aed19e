import { account } from "./Account.js";
import { balances, tokenBalance } from "./Balances.js";
import { supportedChains } from "./Chains.js";
import type { AnyEndpoint } from "./Endpoint.js";
import { health } from "./Health.js";
import { nativeLogo, tokenLogo } from "./Logos.js";
import { defiPositions } from "./Positions.js";
import { webhookEndpoints } from "./Webhooks.js";

/** Every HTTP endpoint of the service, in the order the OpenAPI document lists them. */
export const ENDPOINTS: ReadonlyArray<AnyEndpoint> = [
  balances,
  tokenBalance,
  defiPositions,
  ...webhookEndpoints,
  supportedChains,
  tokenLogo,
  nativeLogo,
  account,
  health,
];
