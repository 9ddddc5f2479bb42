// An existing node:http app with Tidings mounted under /messaging.
//   pnpm exec tsx examples/embed-node-http/main.ts
import { startShop } from "./shop.js";

const shop = await startShop({
  port: Number(process.env.PORT ?? 3001),
  database: process.env.SHOP_DATABASE ?? ":memory:",
  secretKey: process.env.TIDINGS_SECRET_KEY,
});
console.log(`The shop runs at ${shop.url}/ and Tidings at ${shop.url}/messaging`);
console.log("Try:");
console.log(`  curl -s ${shop.url}/messaging/healthz`);
console.log(
  `  curl -s -X POST ${shop.url}/messaging/v1/profiles -H 'Authorization: Bearer ${shop.token}' ` +
    `-H 'Content-Type: application/json' -d '{"phone_number":"+14155550101"}'`,
);
const stop = () => {
  shop.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
