import { Context, Effect, Layer } from "effect";
import { Chains } from "../chains/Chains.js";
import { protocolsOf } from "../chains/ChainsConfig.js";
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
    /**
     * Protocol names of those chains' registries, as positions show them: what `protocols` may
     * name. Absent: names are not checked against a registry (positionFilterNames.ts).
     */
    readonly protocols?: ReadonlySet<string>;
  }
>() {}

export const layer = (settings: WebhookServiceSettings): Layer.Layer<WebhookPolicy, never, Chains> =>
  Layer.effect(
    WebhookPolicy,
    Effect.gen(function* () {
      const registry = yield* Chains;
      const subscribed = registry.chains.filter((chain) => registry.supports(chain, "subscriptions"));
      return {
        url: {
          allowHttp: settings.allowHttp,
          allowedHosts: makeHostAllowList(settings.allowedHosts),
        },
        addresses: { perWebhook: settings.maxAddresses, perCall: settings.maxAddressesPerCall },
        maxPerTeam: settings.maxPerTeam,
        chainIds: new Set(subscribed.map((c) => c.chain_id)),
        protocols: new Set(subscribed.flatMap((chain) => protocolsOf(chain).map((p) => p.protocol))),
      };
    }),
  );
