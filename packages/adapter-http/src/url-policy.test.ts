import type { LookupAddress, LookupOptions } from "node:dns";
import type { UrlPolicy } from "@tidings/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ADDRESS_REFUSED,
  CLOUD_METADATA_ADDRESSES,
  createUrlPolicy,
  isPublicAddress,
} from "./url-policy.js";

/** A resolver from a fixed table, so no test touches real DNS. */
const table =
  (entries: Record<string, string[]>) =>
  async (host: string): Promise<string[]> => {
    const found = entries[host];
    if (found === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return found;
  };

const resolve = table({
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "localhost.example": ["127.0.0.1"],
  "mixed.example": ["93.184.215.14", "10.0.0.7"],
  "empty.example": [],
});

const strict = createUrlPolicy({ dev: false, resolve });

/** The policy's reason for refusing `url`, or null when it allows it. */
async function refusalOf(policy: UrlPolicy, url: string): Promise<string | null> {
  const verdict = await policy.check(url);
  return verdict.allowed ? null : verdict.reason;
}
const dev = createUrlPolicy({ dev: true, resolve });

/** The guard's answer to one lookup, as a promise. */
function lookupWith(
  policy: ReturnType<typeof createUrlPolicy>,
  host: string,
  options: LookupOptions,
): Promise<{ address: string | LookupAddress[]; family: number | undefined }> {
  return new Promise((done, fail) => {
    policy.guardedLookup(host, options, (error, address, family) => {
      if (error) fail(error);
      else done({ address, family });
    });
  });
}

describe("isPublicAddress (only public unicast may receive webhooks)", () => {
  it("accepts public unicast IPv4 and IPv6", () => {
    for (const ip of [
      "93.184.215.14",
      "8.8.8.8",
      "1.1.1.1",
      "2606:4700:4700::1111",
      "2a00:1450:4001::200e",
    ]) {
      expect(isPublicAddress(ip), ip).toBe(true);
    }
  });

  it("refuses every special-purpose range, IPv4-mapped IPv6 included", () => {
    for (const ip of [
      "0.0.0.0",
      "127.0.0.1",
      "127.255.255.254",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.255",
      "224.0.0.1",
      "255.255.255.255",
      "192.0.2.1",
      "198.18.0.1",
      "240.0.0.1",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "::127.0.0.1",
      "64:ff9b::a00:1",
      "2001:db8::1",
      "not an address",
      "",
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
  });

  it("reads an IPv4-mapped IPv6 address as the IPv4 address inside", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(isPublicAddress(`::ffff:${ip}`)).toBe(isPublicAddress(ip));
      }),
    );
  });

  it("refuses every address of 10/8, 172.16/12, 192.168/16, 127/8, 169.254/16 and 100.64/10", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const ranges = fc.oneof(
      fc.tuple(fc.constant(10), octet, octet, octet),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
    );
    fc.assert(
      fc.property(ranges, (parts) => {
        expect(isPublicAddress(parts.join("."))).toBe(false);
      }),
    );
  });
});

describe("createUrlPolicy (docs/decisions.md: Webhook URL)", () => {
  it("allows an https URL whose host resolves only to public addresses", async () => {
    expect(await strict.check("https://hooks.example.com/in?x=1")).toEqual({ allowed: true });
    expect(await strict.check("http://hooks.example.com/")).toEqual({
      allowed: false,
      reason: "The URL must use https.",
    });
    expect(await refusalOf(strict, "https://93.184.215.14/in")).toBeNull();
  });

  it("refuses private, loopback and metadata targets outside development mode (SSRF)", async () => {
    for (const url of [
      "http://127.0.0.1",
      "http://[::1]",
      "http://169.254.169.254",
      "http://10.0.0.1",
      "http://0x7f000001",
      "http://2130706433",
      "http://[::ffff:127.0.0.1]",
      "http://localhost.example",
      "https://127.0.0.1",
      "https://[::1]/in",
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1",
      "https://0x7f000001",
      "https://2130706433",
      "https://017700000001",
      "https://127.1",
      "https://[::ffff:127.0.0.1]",
      "https://[::ffff:7f00:1]",
      "https://localhost.example/in",
      "https://mixed.example",
      "https://0.0.0.0",
      "https://[fd00::1]",
    ]) {
      const reason = await refusalOf(strict, url);
      expect(reason, url).not.toBeNull();
    }
  });

  it("names the refused address and its range, and the host that resolved to it", async () => {
    expect(await refusalOf(strict, "https://localhost.example/in")).toBe(
      "The URL is refused: address 127.0.0.1 is loopback (the host localhost.example resolves to it); webhooks may only go to public addresses.",
    );
    expect(await refusalOf(strict, "https://169.254.169.254/")).toMatch(
      /instance metadata service .*\(cloud metadata\)/,
    );
    expect(await refusalOf(strict, "https://0x7f000001/")).toMatch(
      /address 127\.0\.0\.1 is loopback/,
    );
    expect(await refusalOf(strict, "https://mixed.example/")).toMatch(
      /address 10\.0\.0\.7 is private/,
    );
    expect(await refusalOf(strict, "https://[::ffff:127.0.0.1]/")).toMatch(
      /address ::ffff:7f00:1 \(IPv4-mapped 127\.0\.0\.1\) is loopback/,
    );
    expect(await refusalOf(strict, "https://[::ffff:a9fe:a9fe]/")).toMatch(
      /IPv4-mapped 169\.254\.169\.254\) is the instance metadata service .*\(cloud metadata\)/,
    );
  });

  it("names the development-mode switch in the refusals it would lift, and only in those", async () => {
    const hinted = createUrlPolicy({ dev: false, resolve, devModeHint: "TIDINGS_DEV=1" });
    expect(await refusalOf(hinted, "http://hooks.example.com/")).toBe(
      "The URL must use https (http is allowed when the server runs with TIDINGS_DEV=1).",
    );
    expect(await refusalOf(hinted, "https://localhost.example/in")).toBe(
      "The URL is refused: address 127.0.0.1 is loopback (the host localhost.example resolves to it); webhooks may only go to public addresses (loopback is allowed when the server runs with TIDINGS_DEV=1).",
    );
    // Development mode lifts neither of these, so the switch is not offered.
    expect(await refusalOf(hinted, "ftp://hooks.example.com/")).toBe("The URL must use https.");
    expect(await refusalOf(hinted, "https://mixed.example/")).toBe(
      "The URL is refused: address 10.0.0.7 is private (the host mixed.example resolves to it); webhooks may only go to public addresses.",
    );
    expect(await refusalOf(hinted, "https://169.254.169.254/")).not.toMatch(/TIDINGS_DEV/);
    const hintedDev = createUrlPolicy({ dev: true, resolve, devModeHint: "TIDINGS_DEV=1" });
    expect(await refusalOf(hintedDev, "https://mixed.example/")).not.toMatch(/TIDINGS_DEV/);
  });

  it("needs https, or http in development mode", async () => {
    expect(await refusalOf(strict, "http://hooks.example.com/")).toBe("The URL must use https.");
    expect(await refusalOf(dev, "http://hooks.example.com/")).toBeNull();
    for (const url of [
      "ftp://hooks.example.com/",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "gopher://x/",
    ]) {
      expect(await refusalOf(dev, url), url).not.toBeNull();
      expect(await refusalOf(strict, url), url).not.toBeNull();
    }
  });

  it("refuses credentials in the URL, unparsable URLs and hosts that do not resolve", async () => {
    expect(await refusalOf(strict, "https://user:pass@hooks.example.com/")).toBe(
      "The URL must not contain a user name or password.",
    );
    expect(await refusalOf(strict, "https://user@hooks.example.com/")).not.toBeNull();
    expect(await refusalOf(strict, "not a url")).toBe("The URL is not a valid absolute URL.");
    expect(await refusalOf(strict, "/relative")).not.toBeNull();
    expect(await refusalOf(strict, "https://nowhere.example/")).toBe(
      "The host nowhere.example could not be resolved (ENOTFOUND).",
    );
    expect(await refusalOf(strict, "https://empty.example/")).toBe(
      "The host empty.example has no addresses.",
    );
  });

  it("development mode allows loopback but still refuses private, link-local and metadata addresses", async () => {
    for (const url of [
      "http://127.0.0.1:8080/",
      "http://[::1]/",
      "http://localhost.example/",
      "http://[::ffff:127.0.0.1]/",
    ]) {
      expect(await refusalOf(dev, url), url).toBeNull();
    }
    for (const url of [
      "http://169.254.169.254/",
      "http://10.0.0.1/",
      "http://192.168.0.10/",
      "http://[fe80::1]/",
      "http://[fc00::1]/",
      "http://100.64.0.1/",
      "http://mixed.example/",
      "http://0.0.0.0/",
    ]) {
      expect(await refusalOf(dev, url), url).not.toBeNull();
    }
  });
});

describe("cloud metadata endpoints", () => {
  const metadata = Object.keys(CLOUD_METADATA_ADDRESSES);
  const literal = (ip: string) => (ip.includes(":") ? `[${ip}]` : ip);
  const viaDns = createUrlPolicy({
    dev: true,
    resolve: async (host) => [metadata[Number(host.split(".")[0]?.slice(1))] ?? "8.8.8.8"],
  });

  it("lists the Azure, Alibaba, AWS IPv6 and Oracle addresses beside the usual one", () => {
    for (const ip of [
      "169.254.169.254",
      "168.63.129.16",
      "100.100.100.200",
      "fd00:ec2::254",
      "192.0.0.192",
    ]) {
      expect(metadata, ip).toContain(ip);
    }
  });

  it("are refused in every mode, by literal, by name, IPv4-mapped and at connect time", async () => {
    for (const [i, ip] of metadata.entries()) {
      expect(isPublicAddress(ip), ip).toBe(false);
      for (const policy of [strict, dev]) {
        expect(await refusalOf(policy, `https://${literal(ip)}/latest`), ip).toMatch(
          /\(cloud metadata\); webhooks may only go to public addresses\.$/,
        );
      }
      expect(await refusalOf(viaDns, `http://m${i}.example/`), ip).toMatch(
        new RegExp(`${ip.replaceAll(".", "\\.")} is .*\\(cloud metadata\\) \\(the host m${i}`),
      );
      await expect(lookupWith(viaDns, `m${i}.example`, {}), ip).rejects.toMatchObject({
        code: ADDRESS_REFUSED,
      });
      if (!ip.includes(":")) {
        expect(await refusalOf(dev, `http://[::ffff:${ip}]/`), ip).toMatch(/\(cloud metadata\)/);
      }
    }
  });

  it("a public address that is none of them is still allowed", async () => {
    expect(await refusalOf(viaDns, "http://public.example/")).toBeNull();
  });
});

describe("guardedLookup (the same rule at connect time, against DNS rebinding)", () => {
  it("answers the public addresses, one or all, as dns.lookup does", async () => {
    expect(await lookupWith(strict, "hooks.example.com", {})).toEqual({
      address: "93.184.215.14",
      family: 4,
    });
    expect(await lookupWith(strict, "hooks.example.com", { all: true })).toEqual({
      address: [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
      ],
      family: undefined,
    });
    expect(await lookupWith(strict, "hooks.example.com", { family: 6 })).toEqual({
      address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
      family: 6,
    });
  });

  it("refuses a host when any address it resolves to is not allowed, with a clear error", async () => {
    await expect(lookupWith(strict, "mixed.example", { all: true })).rejects.toMatchObject({
      code: ADDRESS_REFUSED,
      message: "refused: address 10.0.0.7 is private",
    });
    await expect(lookupWith(strict, "localhost.example", {})).rejects.toMatchObject({
      message: "refused: address 127.0.0.1 is loopback",
    });
    await expect(lookupWith(dev, "mixed.example", {})).rejects.toMatchObject({
      code: ADDRESS_REFUSED,
    });
    expect(await lookupWith(dev, "localhost.example", {})).toEqual({
      address: "127.0.0.1",
      family: 4,
    });
  });

  it("checks IP literals too and passes resolver errors through", async () => {
    await expect(lookupWith(strict, "169.254.169.254", {})).rejects.toMatchObject({
      message:
        "refused: address 169.254.169.254 is the instance metadata service of AWS, GCP, Azure and Oracle Cloud (cloud metadata)",
    });
    await expect(lookupWith(strict, "nowhere.example", {})).rejects.toMatchObject({
      code: "ENOTFOUND",
    });
  });

  it("a host whose DNS answer changes after the check is refused at connect time", async () => {
    let answer = ["93.184.215.14"];
    const rebinding = createUrlPolicy({ dev: false, resolve: async () => answer });
    expect(await refusalOf(rebinding, "https://rebind.example/")).toBeNull();
    answer = ["127.0.0.1"];
    await expect(lookupWith(rebinding, "rebind.example", {})).rejects.toMatchObject({
      code: ADDRESS_REFUSED,
    });
  });
});
