import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { createRequire } from "node:module";
import { isIP, type LookupFunction } from "node:net";
import type { UrlPolicy, UrlVerdict } from "@tidings/core";
import { err, ok, type Result } from "neverthrow";

type IpAddr = typeof import("ipaddr.js");
type IPv6 = import("ipaddr.js").IPv6;
type IPAddress = ReturnType<IpAddr["parse"]>;

// ipaddr.js is CommonJS with an ambient `export =` declaration, which TypeScript will not
// default-import here; requiring it is what Node's ESM loader does anyway.
const ipaddr = createRequire(import.meta.url)("ipaddr.js") as IpAddr;

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolve = (host: string) => Promise<string[]>;

export interface UrlPolicyOptions {
  /** Development mode (`TIDINGS_DEV=1`): http and loopback addresses are allowed too. */
  dev: boolean;
  /** Resolves host names; `dns.lookup` with `all: true` by default (injectable for tests). */
  resolve?: Resolve | undefined;
  /**
   * How a person turns development mode on (the server passes `TIDINGS_DEV=1`), named in a
   * refusal that development mode would lift: an http URL, a loopback address.
   */
  devModeHint?: string | undefined;
}

/** A `UrlPolicy` plus the same rule as a `lookup` for the HTTP client's connect step. */
export interface WebhookUrlPolicy extends UrlPolicy {
  /**
   * A drop-in `dns.lookup` for `net.connect`/`tls.connect` (undici's `connect.lookup`): it
   * resolves, refuses with an error when any address is not allowed, and otherwise answers the
   * addresses. Running at connect time, it closes the DNS-rebinding gap left by `check`.
   */
  guardedLookup: LookupFunction;
}

/** The error a refused address gives at connect time. */
export const ADDRESS_REFUSED = "ERR_WEBHOOK_ADDRESS_REFUSED";

// ipaddr.js range names, in words, for the reasons.
const RANGE_WORDS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "a broadcast address",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (shared address space)",
  private: "private",
  reserved: "reserved",
  uniqueLocal: "unique-local (private)",
  ipv4Compatible: "an IPv4-compatible IPv6 address",
};

/**
 * The ipaddr.js range of an address, IPv4-mapped IPv6 (`::ffff:127.0.0.1`) read as its IPv4
 * address; `null` when the text is not an IP address.
 */
function addressRange(ip: string): string | null {
  const address = parseAddress(ip);
  if (address === null) return null;
  const range = address.range();
  // ipaddr.js calls the deprecated IPv4-compatible block (::a.b.c.d) unicast; some stacks
  // still route it to the embedded IPv4 address, so it is refused like the address inside.
  if (address.kind() === "ipv6" && range === "unicast" && isIpv4Compatible(address as IPv6)) {
    return "ipv4Compatible";
  }
  return range;
}

/** The parsed address, an IPv4-mapped IPv6 one turned into its IPv4 address; `null` if not IP. */
function parseAddress(ip: string): IPAddress | null {
  const text = bare(ip);
  if (!ipaddr.isValid(text)) return null;
  const address = ipaddr.parse(text);
  if (address.kind() === "ipv6" && (address as IPv6).isIPv4MappedAddress()) {
    return (address as IPv6).toIPv4Address();
  }
  return address;
}

const isIpv4Compatible = (address: IPv6): boolean =>
  address.parts.slice(0, 6).every((part) => part === 0);

/**
 * Cloud metadata and platform endpoints, refused in every mode (development too) whatever
 * range they are in: they hand out credentials to whoever on the machine asks. Keyed by the
 * address as ipaddr.js prints it; each entry names where the address is documented.
 */
export const CLOUD_METADATA_ADDRESSES: Readonly<Record<string, string>> = {
  // AWS, GCP, Azure and Oracle instance metadata (IMDS):
  // https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html
  "169.254.169.254": "the instance metadata service of AWS, GCP, Azure and Oracle Cloud",
  // AWS IMDS over IPv6 (Nitro instances), same page as above.
  "fd00:ec2::254": "the AWS instance metadata service (IPv6)",
  // AWS ECS task metadata and credentials:
  // https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-metadata-endpoint-v2.html
  "169.254.170.2": "the AWS ECS task metadata and credentials endpoint",
  // Azure WireServer, a public address on every Azure VM:
  // https://learn.microsoft.com/azure/virtual-network/what-is-ip-address-168-63-129-16
  "168.63.129.16": "the Azure WireServer (platform metadata)",
  // Alibaba Cloud ECS metadata:
  // https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata
  "100.100.100.200": "the Alibaba Cloud instance metadata service",
  // Oracle Cloud Infrastructure's legacy metadata and iSCSI address:
  // https://docs.oracle.com/en-us/iaas/Content/Compute/Tasks/gettingmetadata.htm
  "192.0.0.192": "an Oracle Cloud metadata endpoint",
};

/** Whether an address is public unicast, the only kind that may receive webhooks. */
export function isPublicAddress(ip: string): boolean {
  return addressRange(ip) === "unicast" && metadataEndpoint(ip) === null;
}

/** What cloud metadata endpoint `ip` is (IPv4-mapped forms included), or `null`. */
function metadataEndpoint(ip: string): string | null {
  const parsed = parseAddress(ip);
  return parsed === null ? null : (CLOUD_METADATA_ADDRESSES[parsed.toString()] ?? null);
}

/** Ok when `ip` may be connected to in this mode, otherwise why not (`address … is …`). */
function checkAddress(ip: string, dev: boolean): Result<void, string> {
  const range = addressRange(ip);
  if (range === null) return err(`address ${ip} is not an IP address`);
  const parsed = parseAddress(ip);
  const ipv4 = parsed?.kind() === "ipv4" ? parsed.toString() : null;
  // `::ffff:7f00:1` is easier to judge as 127.0.0.1.
  const mapped =
    ipv4 !== null && ip.includes(":") && !ip.includes(ipv4) ? ` (IPv4-mapped ${ipv4})` : "";
  const metadata = metadataEndpoint(ip);
  if (metadata !== null) return err(`address ${ip}${mapped} is ${metadata} (cloud metadata)`);
  if (range === "unicast") return ok(undefined);
  if (range === "loopback" && dev) return ok(undefined);
  const words = RANGE_WORDS[range] ?? `in the special-purpose range "${range}"`;
  return err(`address ${ip}${mapped} is ${words}`);
}

const refuse = (reason: string): UrlVerdict => ({ allowed: false, reason });

/** The URL policy of docs/decisions.md "Webhook URL": https only, every resolved address public. */
export function createUrlPolicy(options: UrlPolicyOptions): WebhookUrlPolicy {
  const resolve = options.resolve ?? resolveWithDns;
  const { dev } = options;
  // Only outside development mode, and only for what it would allow.
  const liftedBy = (what: string): string =>
    !dev && options.devModeHint !== undefined
      ? ` (${what} is allowed when the server runs with ${options.devModeHint})`
      : "";

  const check = async (text: string): Promise<UrlVerdict> => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return refuse("The URL is not a valid absolute URL.");
    }
    const allowed = dev ? ["https:", "http:"] : ["https:"];
    if (!allowed.includes(url.protocol)) {
      if (dev) return refuse("The URL must use https or http.");
      return refuse(
        url.protocol === "http:"
          ? `The URL must use https${liftedBy("http")}.`
          : "The URL must use https.",
      );
    }
    if (url.username !== "" || url.password !== "") {
      return refuse("The URL must not contain a user name or password.");
    }
    const host = bare(url.hostname);
    let addresses: string[];
    try {
      addresses = isIP(host) !== 0 ? [host] : await resolve(host);
    } catch (error) {
      return refuse(`The host ${host} could not be resolved (${errorCode(error)}).`);
    }
    if (addresses.length === 0) return refuse(`The host ${host} has no addresses.`);
    for (const address of addresses) {
      const usable = checkAddress(address, dev);
      if (usable.isOk()) continue;
      const via = address === host ? "" : ` (the host ${host} resolves to it)`;
      const lifted = addressRange(address) === "loopback" ? liftedBy("loopback") : "";
      return refuse(
        `The URL is refused: ${usable.error}${via}; webhooks may only go to public addresses${lifted}.`,
      );
    }
    return { allowed: true };
  };

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const host = bare(hostname);
    const found = isIP(host) !== 0 ? Promise.resolve([host]) : resolve(host);
    found.then(
      (all) => {
        const family =
          lookupOptions.family === "IPv4"
            ? 4
            : lookupOptions.family === "IPv6"
              ? 6
              : lookupOptions.family;
        const addresses: LookupAddress[] = all
          .map((address) => ({ address, family: isIP(address) }))
          .filter(
            (entry) =>
              entry.family !== 0 &&
              (family === undefined || family === 0 || entry.family === family),
          );
        for (const { address } of addresses) {
          const usable = checkAddress(address, dev);
          if (usable.isErr()) return callback(refused(`refused: ${usable.error}`), "", 0);
        }
        const first = addresses[0];
        if (first === undefined) {
          return callback(refused(`refused: the host ${host} has no usable address`), "", 0);
        }
        if (lookupOptions.all === true) return callback(null, addresses);
        return callback(null, first.address, first.family);
      },
      (error: unknown) => callback(asErrno(error), "", 0),
    );
  };

  return { check, guardedLookup };
}

/** The default resolver: the system's resolver, every address, in its own order. */
const resolveWithDns: Resolve = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });

/** A host without the brackets WHATWG URL keeps around IPv6 literals. */
const bare = (host: string): string =>
  host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;

function refused(message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = ADDRESS_REFUSED;
  return error;
}

function asErrno(error: unknown): NodeJS.ErrnoException {
  return error instanceof Error ? error : new Error(String(error));
}

const errorCode = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
};
