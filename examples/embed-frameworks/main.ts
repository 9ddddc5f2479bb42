// Tidings mounted under /messaging in an Express, Fastify or Hono app.
//   pnpm exec tsx examples/embed-frameworks/main.ts express|fastify|hono
import { startExpress } from "./express.js";
import { startFastify } from "./fastify.js";
import { startHono } from "./hono.js";

const hosts = { express: startExpress, fastify: startFastify, hono: startHono };
const name = process.argv[2] ?? "";
if (!Object.hasOwn(hosts, name)) {
  console.error("Usage: main.ts express|fastify|hono");
  process.exit(2);
}
const host = await hosts[name as keyof typeof hosts](Number(process.env.PORT ?? 3001));
console.log(`The ${name} shop runs at ${host.url}/ and Tidings at ${host.url}/messaging`);
console.log(
  `Try: curl -s -X POST ${host.url}/messaging/v1/profiles -H 'Authorization: Bearer ${host.token}' ` +
    `-H 'Content-Type: application/json' -d '{"phone_number":"+14155550101"}'`,
);
const stop = () => {
  host.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
