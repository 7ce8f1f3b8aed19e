import { describe, expect, it } from "vitest";
import { classifyIp, embeddedIpv4, parseCidr, parseIp } from "../../../src/webhooks/targets/ipRanges.js";

describe("ipRanges", () => {
  it("default: public IPv4 and IPv6 addresses are public", () => {
    for (const ip of [
      "8.8.8.8",
      "1.1.1.1",
      "93.184.216.34",
      "2606:4700:4700::1111",
      "2a00:1450:4001:81c::200e",
    ]) {
      expect(classifyIp(ip), ip).toBe("public");
    }
  });

  it("behavior: IPv4 special ranges are classified", () => {
    expect(
      Object.fromEntries(
        [
          "0.0.0.0",
          "0.1.2.3",
          "10.1.2.3",
          "100.64.0.1",
          "100.100.100.200",
          "127.0.0.1",
          "127.255.255.254",
          "169.254.169.254",
          "169.254.170.2",
          "169.254.1.1",
          "172.16.0.1",
          "172.31.255.255",
          "192.0.2.1",
          "192.168.0.1",
          "198.18.0.1",
          "198.51.100.7",
          "203.0.113.9",
          "224.0.0.1",
          "240.0.0.1",
          "255.255.255.255",
        ].map((ip) => [ip, classifyIp(ip)]),
      ),
    ).toEqual({
      "0.0.0.0": "unspecified",
      "0.1.2.3": "reserved",
      "10.1.2.3": "private",
      "100.64.0.1": "sharedAddressSpace",
      "100.100.100.200": "metadata",
      "127.0.0.1": "loopback",
      "127.255.255.254": "loopback",
      "169.254.169.254": "metadata",
      "169.254.170.2": "metadata",
      "169.254.1.1": "linkLocal",
      "172.16.0.1": "private",
      "172.31.255.255": "private",
      "192.0.2.1": "documentation",
      "192.168.0.1": "private",
      "198.18.0.1": "benchmarking",
      "198.51.100.7": "documentation",
      "203.0.113.9": "documentation",
      "224.0.0.1": "multicast",
      "240.0.0.1": "reserved",
      "255.255.255.255": "broadcast",
    });
    expect(classifyIp("172.32.0.1")).toBe("public");
    expect(classifyIp("100.128.0.1")).toBe("public");
  });

  it("behavior: IPv6 special ranges are classified, zones and brackets ignored", () => {
    expect(classifyIp("::")).toBe("unspecified");
    expect(classifyIp("::1")).toBe("loopback");
    expect(classifyIp("[::1]")).toBe("loopback");
    expect(classifyIp("fe80::1%eth0")).toBe("linkLocal");
    expect(classifyIp("fc00::1")).toBe("uniqueLocal");
    expect(classifyIp("fdff:ffff::1")).toBe("uniqueLocal");
    expect(classifyIp("fd00:ec2::254")).toBe("metadata");
    expect(classifyIp("ff02::1")).toBe("multicast");
    expect(classifyIp("2001:db8::1")).toBe("documentation");
    expect(classifyIp("2001:0:4136:e378::1")).toBe("reserved");
    expect(classifyIp("fec0::1")).toBe("reserved");
    expect(classifyIp("100::1")).toBe("reserved");
    expect(classifyIp("4000::1")).toBe("reserved");
  });

  it("behavior: IPv6 encodings of IPv4 addresses are judged by the IPv4 address they carry", () => {
    expect(classifyIp("::ffff:127.0.0.1")).toBe("loopback");
    expect(classifyIp("::ffff:7f00:1")).toBe("loopback");
    expect(classifyIp("::ffff:a9fe:a9fe")).toBe("metadata");
    expect(classifyIp("::ffff:8.8.8.8")).toBe("public");
    expect(classifyIp("64:ff9b::10.0.0.1")).toBe("private");
    expect(classifyIp("64:ff9b::808:808")).toBe("public");
    expect(classifyIp("2002:c0a8:0101::1")).toBe("private");
    expect(classifyIp("2002:0808:0808::1")).toBe("public");
    expect(classifyIp("::127.0.0.1")).toBe("loopback");
    expect(embeddedIpv4(parseIp("::1")!)).toBeUndefined();
  });

  it("error: text that is not an IP address is undefined", () => {
    for (const text of [
      "",
      "example.com",
      "256.1.1.1",
      "1.2.3",
      "01.2.3.4",
      "1.2.3.4.5",
      "0x7f.0.0.1",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "::ffff:1.2.3",
      ":",
    ]) {
      expect(classifyIp(text), text).toBeUndefined();
    }
  });

  it("args: CIDR ranges parse with their prefix; bad prefixes are rejected", () => {
    expect(parseCidr("10.0.0.0/8")?.prefix).toBe(8);
    expect(parseCidr("fd00::/8")?.prefix).toBe(8);
    expect(parseCidr("1.2.3.4")?.prefix).toBe(32);
    expect(parseCidr("10.0.0.0/33")).toBeUndefined();
    expect(parseCidr("::/129")).toBeUndefined();
    expect(parseCidr("10.0.0.0/x")).toBeUndefined();
  });
});
