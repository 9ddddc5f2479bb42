import { BlockList, isIP } from "node:net";

/** The proxies whose `X-Forwarded-For` is believed: addresses and CIDR ranges. */
export interface TrustedProxies {
  has(address: string): boolean;
}

/** `::ffff:203.0.113.7` is the IPv4 address it maps. */
const unmapped = (address: string): string =>
  address.toLowerCase().startsWith("::ffff:") && isIP(address.slice(7)) === 4
    ? address.slice(7)
    : address;

/**
 * Parses a list such as `10.0.0.1, 192.168.0.0/16, ::1` (`TIDINGS_TRUSTED_PROXIES`); an entry
 * that is no address or range makes it throw, naming the entry.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === "") continue;
    const [address = "", bits, ...rest] = entry.split("/");
    const family = isIP(address);
    const prefix = bits === undefined ? null : Number(bits);
    const maxBits = family === 4 ? 32 : 128;
    if (
      family === 0 ||
      rest.length > 0 ||
      (prefix !== null && (!Number.isInteger(prefix) || prefix < 0 || prefix > maxBits))
    ) {
      throw new Error(`${JSON.stringify(entry)} is not an IP address or a CIDR range.`);
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === null) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return {
    has(address) {
      const plain = unmapped(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/** No proxy is trusted. */
export const NO_TRUSTED_PROXIES: TrustedProxies = { has: () => false };

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy, in which case
 * `X-Forwarded-For` is read from the right, skipping trusted proxies, and the first address
 * that is not one is the client (a client can prepend anything, never append). `"unknown"`
 * when the listener gave no address.
 */
export function clientAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | null,
  proxies: TrustedProxies,
): string {
  if (remoteAddress === undefined) return "unknown";
  let client = unmapped(remoteAddress);
  if (!proxies.has(client) || forwardedFor === null) return client;
  const hops = forwardedFor.split(",").map((hop) => hop.trim());
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = unmapped(hops[i] ?? "");
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!proxies.has(hop)) return client;
  }
  return client;
}
