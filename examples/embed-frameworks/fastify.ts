import Fastify from "fastify";
import { embedTidings, PREFIX, type RunningHost } from "../embed-node-http/tidings.js";

/**
 * A Fastify app with its own JSON routes and Tidings under `/messaging`. The Tidings routes
 * live in their own plugin scope without Fastify's body parsers, so the raw request stream
 * reaches Tidings unread, and the reply is hijacked so Fastify does not answer too.
 */
export async function startFastify(port = 0): Promise<RunningHost> {
  const tidings = await embedTidings({ secretKey: process.env.TIDINGS_SECRET_KEY });
  const app = Fastify();
  app.get("/", async (_request, reply) => reply.type("text/plain").send("Welcome to the shop.\n"));
  app.post("/orders", async (request, reply) => {
    const body = request.body as { items?: unknown[] } | undefined;
    return reply.code(201).send({ order: "ord_1", items: body?.items ?? [] });
  });
  await app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
      const mount = (
        request: { raw: Parameters<typeof tidings.listener>[0] },
        reply: {
          hijack(): void;
          raw: Parameters<typeof tidings.listener>[1];
        },
      ) => {
        reply.hijack();
        tidings.listener(request.raw, reply.raw);
      };
      scope.all("/", mount);
      scope.all("/*", mount);
    },
    { prefix: PREFIX },
  );

  const url = await app.listen({ port, host: "127.0.0.1" });
  return {
    url,
    token: tidings.token,
    async close() {
      await app.close();
      await tidings.close();
    },
  };
}
