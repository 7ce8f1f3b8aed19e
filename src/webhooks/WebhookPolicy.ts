import { Context, Effect, Layer } from "effect";
import { AppConfig } from "../AppConfig.js";
import { Chains } from "../chains/Chains.js";
import type { AddressLimits } from "./addressList.js";
import { makeHostAllowList } from "./hostAllowList.js";
import type { UrlPolicy } from "./urlPolicy.js";

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

export const layer: Layer.Layer<WebhookPolicy, never, AppConfig | Chains> = Layer.effect(
  WebhookPolicy,
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const registry = yield* Chains;
    return {
      url: {
        allowHttp: config.webhookAllowHttp,
        allowedHosts: makeHostAllowList(config.webhookAllowedHosts),
      },
      addresses: { perWebhook: config.webhookMaxAddresses, perCall: config.webhookMaxAddressesPerCall },
      maxPerTeam: config.webhookMaxPerTeam,
      chainIds: new Set(
        registry.chains.filter((chain) => registry.supports(chain, "subscriptions")).map((c) => c.chain_id),
      ),
    };
  }),
);
