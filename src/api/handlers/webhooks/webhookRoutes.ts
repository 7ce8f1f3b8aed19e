import type { Chains } from "../../../chains/Chains.js";
import type { Discovery } from "../../../discovery/Discovery.js";
import type { WatchedWallets } from "../../../discovery/watchedWallets.js";
import type { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import type { WebhookPolicy } from "../../../webhooks/WebhookPolicy.js";
import type { WebhookStore } from "../../../webhooks/WebhookStore.js";
import type { Route } from "../../Handler.js";
import { getAddressesRoute, replaceAddressesRoute, updateAddressesRoute } from "./addressHandlers.js";
import { createWebhookRoute } from "./createWebhookHandler.js";
import { deleteWebhookRoute } from "./deleteWebhookHandler.js";
import { getWebhookRoute, listWebhooksRoute } from "./readWebhookHandlers.js";
import { rotateSecretRoute } from "./rotateSecretHandler.js";
import { updateWebhookRoute } from "./updateWebhookHandler.js";

/** What the webhook routes need from the API role (discovery and the chains: for watched addresses). */
export type WebhookServices =
  | WebhookStore
  | WebhookPolicy
  | WebhookSupervisor
  | Discovery
  | WatchedWallets
  | Chains;

/** Every webhook management route (all 0 CU). */
export const webhookRoutes: ReadonlyArray<Route<WebhookServices>> = [
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  getAddressesRoute,
  replaceAddressesRoute,
  updateAddressesRoute,
  rotateSecretRoute,
];
