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
# The server and the packages it depends on, then the server alone with its production
# dependencies (better-sqlite3's compiled addon among them, the workspace packages as built).
RUN pnpm --filter "@tidings/server..." run build \
 && pnpm --filter @tidings/server deploy --legacy --prod --offline /app/packages/server \
 && node /app/packages/server/dist/bin.js --version

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
