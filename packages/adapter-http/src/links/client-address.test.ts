import { describe, expect, it } from "vitest";
import { clientAddress, limitKeyOf, trustedProxies } from "./client-address.js";

describe("the client behind the links' limit", () => {
  const proxies = trustedProxies(["10.0.0.0/8", "::1"]);

  it("reads X-Forwarded-For from the right behind trusted proxies, ports and brackets taken off", () => {
    expect(clientAddress("10.0.0.2", "198.51.100.9, 203.0.113.7:51234", proxies)).toBe(
      "203.0.113.7",
    );
    expect(clientAddress("::1", "[2001:db8::1]:443", proxies)).toBe("2001:db8::1");
    expect(clientAddress("10.0.0.2", "203.0.113.7, 10.0.0.3", proxies)).toBe("203.0.113.7");
    // A peer that is no trusted proxy is the client, whatever the header says.
    expect(clientAddress("198.51.100.1", "203.0.113.7", proxies)).toBe("198.51.100.1");
    // A hop that is no address stops the walk at the last address known.
    expect(clientAddress("10.0.0.2", "garbage", proxies)).toBe("10.0.0.2");
  });

  it("counts an IPv4 address alone and an IPv6 address by its /64", () => {
    expect(limitKeyOf("203.0.113.7")).toBe("203.0.113.7");
    const key = "2001:0db8:0001:0002::/64";
    for (const address of [
      "2001:db8:1:2::1",
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:DB8:1:2:0:0:0:9",
      "2001:db8:1:2::192.0.2.1",
    ]) {
      expect(limitKeyOf(address), address).toBe(key);
    }
    expect(limitKeyOf("2001:db8:1:3::1")).not.toBe(key);
    expect(limitKeyOf("::1")).toBe("0000:0000:0000:0000::/64");
    expect(limitKeyOf("unknown")).toBe("unknown");
  });
});
