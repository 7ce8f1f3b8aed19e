import { Context, Effect, Layer } from "effect";
import { Chains } from "../chains/Chains.js";
import type { AddressLimits } from "./addressList.js";
import { makeHostAllowList } from "./targets/hostAllowList.js";
import type { UrlPolicy } from "./targets/urlPolicy.js";
import type { WebhookServiceSettings } from "./WebhookServiceSettings.js";

/** The deployment's rules for webhooks, read once from the settings and the chain registry. */
export class WebhookPolicy extends Context.Tag("app/webhooks/WebhookPolicy")<
  WebhookPolicy,
  {
    readonly url: UrlPolicy;
    readonly addresses: AddressLimits;
    /** WEBHOOK_MAX_PER_TEAM. */
    readonly maxPerTeam: number;
    /** Chains whose events subscriptions can follow (`supports.subscriptions` in the chains file). */
    readonly chainIds: ReadonlySet<number>;
  }
>() {}

export const layer = (settings: WebhookServiceSettings): Layer.Layer<WebhookPolicy, never, Chains> =>
  Layer.effect(
    WebhookPolicy,
    Effect.gen(function* () {
      const registry = yield* Chains;
      return {
        url: {
          allowHttp: settings.allowHttp,
          allowedHosts: makeHostAllowList(settings.allowedHosts),
        },
        addresses: { perWebhook: settings.maxAddresses, perCall: settings.maxAddressesPerCall },
        maxPerTeam: settings.maxPerTeam,
        chainIds: new Set(
          registry.chains.filter((chain) => registry.supports(chain, "subscriptions")).map((c) => c.chain_id),
        ),
      };
    }),
  );
