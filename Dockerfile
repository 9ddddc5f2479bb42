# The Tidings server as a container image: `docker run IMAGE` serves the API on port 3000 with
# its data in the /data volume; `docker run IMAGE <command>` runs any other `tidings` command
# the same way (`orgs create --name Acme`, `migrate`, `worker`). docs/production.md "Running in
# a container" covers running it, upgrades and backups.
#
#   docker build -t tidings .
#   docker run -d --name tidings -p 3000:3000 -v tidings-data:/data tidings

# The runtime image, and the one the build runs on (it needs compilers for better-sqlite3).
ARG BASE=node:20-bookworm-slim
ARG BUILD_BASE=node:20-bookworm

FROM ${BUILD_BASE} AS build
ENV CI=true
WORKDIR /src
# The pnpm version the repository names (`packageManager`), so pnpm fetches no other one.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
RUN npm install --global --no-fund --no-audit \
      "pnpm@$(node -p 'require("./package.json").packageManager.split("@")[1]')"
# Every package in the lockfile, into pnpm's store: a layer that changes only with the lockfile.
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
# The server and the workspace packages it uses, built.
RUN pnpm --filter "@tidings/server..." run build
# The runtime's tree in /app: those packages (package.json and dist alone) in the workspace's
# layout, with their production dependencies installed from the lockfile; better-sqlite3's
# addon is taken from the store as compiled above, and its compiler's leftovers dropped.
RUN mkdir /app \
 && cp package.json pnpm-lock.yaml pnpm-workspace.yaml /app/ \
 && for dir in $(pnpm --filter "@tidings/server..." exec pwd); do \
      mkdir -p "/app/${dir#/src/}" && cp -R "$dir/package.json" "$dir/dist" "/app/${dir#/src/}/"; \
    done \
 && cd /app \
 && pnpm install --prod --frozen-lockfile --offline --filter "@tidings/server..." \
 && rm -rf node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build/Release/obj.target \
      node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build/Release/.deps \
      node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build/Release/test_extension.node \
      node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build/deps \
 && node packages/server/dist/bin.js --version \
 && TIDINGS_DATABASE_URL=sqlite::memory: node packages/server/dist/bin.js migrate

FROM ${BASE}
# The data volume, owned by the user the server runs as; nothing else in the image is writable
# by it, so the image also runs on a read-only root file system.
RUN echo "tidings:x:10001:10001:Tidings:/data:/usr/sbin/nologin" >> /etc/passwd \
 && echo "tidings:x:10001:" >> /etc/group \
 && mkdir -p /data \
 && chown 10001:10001 /data \
 && chmod 0700 /data
ENV NODE_ENV=production \
    TIDINGS_DATABASE_URL=sqlite:/data/tidings.db \
    PORT=3000
WORKDIR /app
COPY --from=build /app /app
USER 10001:10001
VOLUME ["/data"]
EXPOSE 3000
# Ready once the database answers (no curl in the image: Node's fetch does it).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 with no shell or package manager in between, so SIGTERM reaches the server,
# which drains requests and webhook deliveries in flight and exits 0.
ENTRYPOINT ["node", "packages/server/dist/bin.js"]
CMD ["serve", "--host", "0.0.0.0"]
