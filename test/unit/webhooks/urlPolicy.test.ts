import { describe, expect, it } from "vitest";
import {
  isAllowedHost,
  makeHostAllowList,
  parseAllowEntry,
} from "../../../src/webhooks/targets/hostAllowList.js";
import { checkWebhookUrl, type UrlPolicy } from "../../../src/webhooks/targets/urlPolicy.js";

const strict: UrlPolicy = { allowHttp: false, allowedHosts: makeHostAllowList([]) };
const devnet: UrlPolicy = {
  allowHttp: true,
  allowedHosts: makeHostAllowList(["localhost", "127.0.0.0/8", "::1", "10.20.0.0/16", "hooks.internal"]),
};

describe("webhook URL policy", () => {
  it("default: absolute https URLs with public or DNS hosts pass", () => {
    for (const url of [
      "https://example.com/hook",
      "https://example.com:8443/a/b?c=d#e",
      "https://8.8.8.8/",
      "https://[2606:4700::1111]/",
      "https://intranet/",
    ]) {
      expect(checkWebhookUrl(url, strict), url).toBeUndefined();
    }
  });

  it("error: not https, not absolute, credentials, whitespace or too long", () => {
    expect(checkWebhookUrl("http://example.com/", strict)).toMatch(/must use https/);
    expect(checkWebhookUrl("ftp://example.com/", strict)).toMatch(/absolute https URL/);
    expect(checkWebhookUrl("example.com", strict)).toMatch(/absolute https URL/);
    expect(checkWebhookUrl("https:example.com", strict)).toMatch(/absolute https URL/);
    expect(checkWebhookUrl("https://", strict)).toMatch(/absolute https URL/);
    expect(checkWebhookUrl("https://u:p@example.com/", strict)).toMatch(/user name or password/);
    expect(checkWebhookUrl("https://example.com/\n", strict)).toMatch(/whitespace/);
    expect(checkWebhookUrl(`https://example.com/${"a".repeat(2100)}`, strict)).toMatch(/at most 2048/);
  });

  it("error: literal non-public targets and localhost are refused, in every spelling", () => {
    for (const url of [
      "https://127.0.0.1/",
      "https://127.1/",
      "https://0x7f000001/",
      "https://2130706433/",
      "https://localhost/",
      "https://LOCALHOST./",
      "https://api.localhost/",
      "https://10.0.0.1/",
      "https://169.254.169.254/",
      "https://[::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[fe80::1]/",
      "https://[fc00::1]/",
      "https://0.0.0.0/",
    ]) {
      expect(checkWebhookUrl(url, strict), url).toMatch(/must not target/);
    }
    expect(checkWebhookUrl("https://169.254.169.254/", strict)).toMatch(/cloud metadata/);
  });

  it("behavior: the allow-list admits names, addresses and ranges; http only where allowed", () => {
    expect(checkWebhookUrl("http://localhost:3000/hook", devnet)).toBeUndefined();
    expect(checkWebhookUrl("http://127.0.0.1:3000/hook", devnet)).toBeUndefined();
    expect(checkWebhookUrl("http://[::1]:3000/", devnet)).toBeUndefined();
    expect(checkWebhookUrl("http://[::ffff:127.0.0.1]/", devnet)).toBeUndefined();
    expect(checkWebhookUrl("https://10.20.9.9/", devnet)).toBeUndefined();
    expect(checkWebhookUrl("https://10.21.0.1/", devnet)).toMatch(/private network/);
    expect(checkWebhookUrl("https://169.254.169.254/", devnet)).toMatch(/metadata/);
    expect(checkWebhookUrl("ftp://localhost/", devnet)).toMatch(/absolute http or https URL/);
  });

  it("args: allow-list entries are host names, IPs or CIDR ranges", () => {
    expect(parseAllowEntry("Hooks.Internal")).toEqual({ name: "hooks.internal" });
    expect(parseAllowEntry("10.0.0.0/8")).toMatchObject({ range: { prefix: 8 } });
    expect(parseAllowEntry("[::1]")).toMatchObject({ range: { prefix: 128 } });
    expect(parseAllowEntry("not a host")).toBeUndefined();
    expect(parseAllowEntry("10.0.0.0/40")).toBeUndefined();
    const list = makeHostAllowList(["hooks.internal", "192.168.1.0/24"]);
    expect(isAllowedHost(list, "HOOKS.internal.")).toBe(true);
    expect(isAllowedHost(list, "192.168.1.77")).toBe(true);
    expect(isAllowedHost(list, "192.168.2.1")).toBe(false);
    expect(isAllowedHost(list, "other.internal")).toBe(false);
  });
});
