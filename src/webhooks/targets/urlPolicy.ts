import { type HostAllowList, isAllowedHost, normaliseHost } from "./hostAllowList.js";
import { classifyIp, type IpCategory } from "./ipRanges.js";

/** What a deployment lets webhook URLs aim at (from WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOWED_HOSTS). */
export interface UrlPolicy {
  /** Whether plain `http://` URLs are accepted (the embedded devnet accepts them). */
  readonly allowHttp: boolean;
  /** Non-public targets that are accepted anyway. */
  readonly allowedHosts: HostAllowList;
}

/** Longest accepted URL, in characters: longer ones are almost certainly mistakes or abuse. */
export const MAX_URL_LENGTH = 2048;

const DESCRIPTIONS: Record<Exclude<IpCategory, "public">, string> = {
  unspecified: "an unspecified address",
  loopback: "a loopback address",
  private: "a private network address",
  sharedAddressSpace: "a carrier-grade NAT address",
  linkLocal: "a link-local address",
  metadata: "a cloud metadata address",
  uniqueLocal: "a unique local (private) IPv6 address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  documentation: "a documentation address",
  benchmarking: "a benchmarking address",
  reserved: "a reserved address",
};

/** The category of a URL host that is not a public target, or `undefined` for a public IP or a DNS name. */
const nonPublicHost = (hostname: string): Exclude<IpCategory, "public"> | undefined => {
  const host = normaliseHost(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  const category = classifyIp(host);
  return category === undefined || category === "public" ? undefined : category;
};

/**
 * Checks a webhook URL at registration: an absolute `https` URL (or `http` when
 * the policy allows), without credentials, not aimed at a literal non-public IP
 * or `localhost` unless allow-listed. DNS names are not resolved here; the
 * delivery worker checks the addresses it actually dials. Returns the reason
 * (completing "url ...") or `undefined` when the URL is acceptable.
 */
export const checkWebhookUrl = (raw: string, policy: UrlPolicy): string | undefined => {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  // The URL parser silently drops whitespace and control characters; a URL that needed that is refused.
  if (/[\s\p{Cc}]/u.test(raw)) return "must not contain whitespace or control characters";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  const accepted = policy.allowHttp ? "an absolute http or https URL" : "an absolute https URL";
  if (scheme === undefined || !URL.canParse(raw)) return `must be ${accepted}`;
  if (scheme !== "https" && !(scheme === "http" && policy.allowHttp)) {
    return scheme === "http"
      ? "must use https (plain http is not allowed by this deployment)"
      : `must be ${accepted}`;
  }
  const url = new URL(raw);
  if (url.hostname === "") return `must be ${accepted}`;
  if (url.username !== "" || url.password !== "") return "must not contain a user name or password";
  const category = nonPublicHost(url.hostname);
  if (category !== undefined && !isAllowedHost(policy.allowedHosts, url.hostname)) {
    return `must not target ${DESCRIPTIONS[category]} (${normaliseHost(url.hostname)}) unless the deployment allow-lists it in WEBHOOK_ALLOWED_HOSTS`;
  }
  return undefined;
};
