// A provider of your own, built on core's provider kit and plugged into the core.
//   pnpm exec tsx examples/custom-provider/main.ts
import { runDemo } from "./demo.js";

const sends = await runDemo((line) => console.log(`gateway: ${line}`));
for (const send of sends) {
  console.log(`${send.phone}: ${send.status}; events ${send.topics.join(", ")}`);
}
