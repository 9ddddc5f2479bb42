import express from "express";
import { embedTidings, PREFIX, type RunningHost, runningHost } from "../embed-node-http/tidings.js";

/**
 * An Express app with its own JSON routes and Tidings under `/messaging`. Tidings reads its
 * own body, so it is mounted before `express.json()`, which would otherwise consume it.
 */
export async function startExpress(port = 0): Promise<RunningHost> {
  const tidings = await embedTidings({ secretKey: process.env.TIDINGS_SECRET_KEY });
  const app = express();
  // `app.use(PREFIX, …)` would strip the prefix from req.url; matching on the full path
  // leaves the URL whole, so the listener's own prefix handling and 404s apply.
  app.use((req, res, next) => {
    if (
      req.url === PREFIX ||
      req.url.startsWith(`${PREFIX}/`) ||
      req.url.startsWith(`${PREFIX}?`)
    ) {
      tidings.listener(req, res);
    } else {
      next();
    }
  });
  app.use(express.json());
  app.get("/", (_req, res) => {
    res.type("text/plain").send("Welcome to the shop.\n");
  });
  app.post("/orders", (req, res) => {
    res.status(201).json({ order: "ord_1", items: req.body.items ?? [] });
  });

  return runningHost(app.listen(port, "127.0.0.1"), tidings);
}
