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

/**
 * A hop of `X-Forwarded-For` as an address: some proxies write the client's port too
 * (`203.0.113.7:51234`, `[2001:db8::1]:443`).
 */
function hopAddress(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1] ?? hop;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return withPort ? (withPort[1] ?? hop) : hop;
}

/** The eight groups of an IPv6 address, written out (`::` filled, a dotted tail as two). */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => group.padStart(4, "0"));
}

/**
 * Whom a limit per client counts: the address itself for IPv4, its /64 for IPv6 (one
 * subscriber's network, in which a client picks any address it likes).
 */
export function limitKeyOf(address: string): string {
  if (isIP(address) !== 6) return address;
  return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`;
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
    const hop = unmapped(hopAddress(hops[i] ?? ""));
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!proxies.has(hop)) return client;
  }
  return client;
}
