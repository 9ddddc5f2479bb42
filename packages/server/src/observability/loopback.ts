import { isIP } from "node:net";

/** Whether `host` is reachable from this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(bare);
}
