#!/usr/bin/env bash
# The container image's test, outside `pnpm test` (it takes minutes): builds the Dockerfile with
# podman and runs the image as an operator would. `.ci/run` calls it after the test command.
#
# No image registry is reachable from these machines, so the Dockerfile's BASE and BUILD_BASE
# are replaced by stand-ins made from Debian's packages: a bookworm root made with debootstrap,
# with this machine's own node, npm, Node headers and CA bundle copied in (the build base keeps
# python3, make and g++ for better-sqlite3; the runtime base has them removed, like the slim
# image). Both are kept in podman's storage and reused while node and the bundle are unchanged.
#
# Checks: the quickstart through the container (organization and key through the CLI
# entrypoint, campaign, profile, send, the signed webhooks reaching a receiver on this host),
# the key file created in /data and logged once, the server not root, the image's health check,
# the data kept across a restart, a read-only root file system, SIGTERM draining and exiting 0
# within 10 s, and a clear error, exit 1, when /data is not writable. Prints the image's size
# and the build times.
#
# Needs Linux and root (it installs podman, runc and debootstrap from Debian's packages when
# missing). Outside CI it skips, saying why, where that is not so; under CI=true it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'container-test: %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}
skip() {
  if [ "${CI:-}" = "true" ]; then fail "cannot run under CI: $*"; fi
  say "skipped: $*"
  exit 0
}
seconds_since() { echo $(($(date +%s) - $1)); }

started_at=$(date +%s)
run_id="tidings-ct-$$"
mirror="${TIDINGS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# The stand-in recipe's version: change it when the recipe below changes, so the cache is remade.
recipe=2

# ---------------------------------------------------------------------------------------------
# What the test needs from the machine.

[ "$(uname -s)" = "Linux" ] || skip "containers need Linux; this is $(uname -s)."
missing=()
for tool in podman runc debootstrap; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = "0" ] || skip "${missing[*]} not installed, and installing them needs root."
  command -v apt-get >/dev/null 2>&1 || skip "${missing[*]} not installed, and there is no apt-get."
  say "installing podman, runc and debootstrap from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null
fi
[ "$(id -u)" = "0" ] || skip "the stand-in base is made with debootstrap, which needs root."
for tool in curl node npm; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed."
done
[ -d node_modules/.bin ] || fail "run pnpm install first (the webhook receiver runs from the workspace)."
node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(readlink -f "$(dirname "$(readlink -f "$(command -v npm)")")/..")
[ -f "$npm_dir/package.json" ] || fail "cannot find npm's directory (found $npm_dir)."
[ -f /usr/include/node/node_api.h ] || skip "no Node headers in /usr/include/node to compile better-sqlite3 against without downloading them."
ca_bundle=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca_bundle" ] || fail "no CA bundle at $ca_bundle."

# cgroups in hybrid mode (which crun refuses), and limits that may not be raised here.
PODMAN=(podman --runtime runc --cgroup-manager cgroupfs)
LIMITS=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
# Host networking: the build reaches the npm registry, the server reaches the receiver here.
RUN=("${PODMAN[@]}" run --network host "${LIMITS[@]}" --no-healthcheck)

# ---------------------------------------------------------------------------------------------
# Cleaning up, whatever happens.

work=$(mktemp -d "${TMPDIR:-/tmp}/tidings-container-test.XXXXXX")
receiver_pid=""
bounded_pid=""
# Runs a long step in the background and waits for it, so that a signal to this script is
# acted on at once (bash runs a trap only once the foreground command is done).
bounded() {
  "$@" &
  bounded_pid=$!
  local code=0
  wait "$bounded_pid" || code=$?
  bounded_pid=""
  return "$code"
}
cleanup() {
  local code=$?
  if [ -n "$bounded_pid" ]; then
    kill -TERM "$bounded_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do
      kill -0 "$bounded_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$bounded_pid" 2>/dev/null || true
  fi
  if [ -n "$receiver_pid" ]; then kill "$receiver_pid" 2>/dev/null || true; fi
  local names
  names=$("${PODMAN[@]}" ps -a --filter "name=^$run_id" --format '{{.Names}}' 2>/dev/null || true)
  for name in $names; do "${PODMAN[@]}" rm -f -t 0 "$name" >/dev/null 2>&1 || true; done
  "${PODMAN[@]}" volume rm -f "$run_id-data" >/dev/null 2>&1 || true
  # debootstrap mounts /proc and /sys in the root it makes: never remove through a mount.
  awk -v under="$work/" 'index($2, under) == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r mounted; do umount -l "$mounted" 2>/dev/null || true; done
  rm -rf --one-file-system "$work"
  if [ "$code" -ne 0 ]; then say "failed after $(seconds_since "$started_at") s"; fi
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# The stand-in bases, made once per node version and CA bundle.

key=$(printf '%s\n' "$recipe" "$("$node_bin" --version)" "$(node -p "require('$npm_dir/package.json').version")" "$(sha256sum <"$ca_bundle")" | sha256sum | cut -c1-12)
build_base="localhost/tidings-test-base:build-$key"
runtime_base="localhost/tidings-test-base:runtime-$key"

make_bases() {
  local root="$work/root"
  say "making the stand-in base from Debian's packages ($mirror)"
  bounded timeout 900 debootstrap --variant=minbase --include=ca-certificates,python3,make,g++ \
    bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    {
      tail -n 20 "$work/debootstrap.log" >&2
      fail "debootstrap failed"
    }
  install -m 0755 "$node_bin" "$root/usr/bin/node"
  mkdir -p "$root/usr/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
  cp -a /usr/include/node "$root/usr/include/node"
  # This machine trusts authorities beyond Debian's to reach the npm registry.
  cp "$ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  local changes=(--change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt"
    --change "ENV npm_config_nodedir=/usr" --change 'CMD ["node"]')
  tar -C "$root" -c . | "${PODMAN[@]}" import "${changes[@]}" - "$build_base" >/dev/null
  # The runtime base: no compilers, no Python, like the slim image. debootstrap marks every
  # package as installed by hand, so each is marked automatic but the base system's own
  # (priority required, essential, apt, ca-certificates), and what nothing needs is removed.
  chroot "$root" sh -c '
    dpkg-query -W -f="\${Package}\n" | xargs apt-mark auto >/dev/null
    dpkg-query -W -f="\${Package} \${Priority} \${Essential}\n" |
      awk "\$2 == \"required\" || \$3 == \"yes\" { print \$1 }" |
      xargs apt-mark manual apt ca-certificates >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get autoremove --purge -y -qq
    ! command -v g++ && ! command -v make && ! command -v python3
  ' >"$work/purge.log" 2>&1 ||
    {
      tail -n 20 "$work/purge.log" >&2
      fail "removing the compilers from the runtime base failed"
    }
  rm -rf "$root/usr/include/node" "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" -c . | "${PODMAN[@]}" import "${changes[@]}" - "$runtime_base" >/dev/null
  rm -rf --one-file-system "$root"
}

base_started=$(date +%s)
if "${PODMAN[@]}" image exists "$build_base" && "${PODMAN[@]}" image exists "$runtime_base"; then
  say "stand-in bases found in podman's storage ($build_base, $runtime_base)"
  base_seconds=0
else
  make_bases
  base_seconds=$(seconds_since "$base_started")
  say "stand-in bases made in $base_seconds s"
  # The stand-ins of an earlier node, CA bundle or recipe are not needed any more.
  for old in $("${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}}' localhost/tidings-test-base); do
    case "$old" in
    "$build_base" | "$runtime_base") ;;
    *) "${PODMAN[@]}" rmi "$old" >/dev/null 2>&1 || true ;;
    esac
  done
fi

# Can podman run a container here at all?
if ! probe=$(timeout 120 "${RUN[@]}" --rm "$runtime_base" node -e 'process.exit(0)' 2>&1); then
  skip "podman cannot run a container on this machine: $(printf '%s' "$probe" | tail -n 3)"
fi

# ---------------------------------------------------------------------------------------------
# The image, from the real Dockerfile.

image="localhost/tidings:container-test"
build_started=$(date +%s)
say "building the image (podman build, Dockerfile at the repository root)"
if ! bounded timeout 1800 "${PODMAN[@]}" build --format docker --network host "${LIMITS[@]}" \
  --build-arg "BASE=$runtime_base" --build-arg "BUILD_BASE=$build_base" \
  -t "$image" -f Dockerfile . >"$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  fail "podman build failed"
fi
build_seconds=$(seconds_since "$build_started")
image_bytes=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$image")
say "image built in $build_seconds s, $((image_bytes / 1000000)) MB"
# The build stage's layers are the next build's cache; an untagged stage would be pruned with
# the layers of earlier builds that no image uses any more. (All taken from the cache here.)
timeout 600 "${PODMAN[@]}" build --format docker --network host "${LIMITS[@]}" \
  --build-arg "BASE=$runtime_base" --build-arg "BUILD_BASE=$build_base" \
  --target build -t "$image-build" -f Dockerfile . >"$work/build-stage.log" 2>&1 ||
  say "tagging the build stage failed; the next build starts afresh"
"${PODMAN[@]}" image prune -f >/dev/null 2>&1 || true

healthcheck=$("${PODMAN[@]}" image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")
case "$healthcheck" in
*readyz*) ;;
*) fail "the image has no HEALTHCHECK on /readyz (found $healthcheck)" ;;
esac
[ "$("${PODMAN[@]}" image inspect --format '{{.Config.User}}' "$image")" = "10001:10001" ] ||
  fail "the image does not run as uid 10001"

# ---------------------------------------------------------------------------------------------
# Helpers for the checks.

free_port() {
  node -e 'const s = require("node:net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}
port=$(free_port)
base_url="http://127.0.0.1:$port"
volume="$run_id-data"
"${PODMAN[@]}" volume create "$volume" >/dev/null

# Waits up to $1 seconds for `$2…` to succeed.
wait_for() {
  local limit=$1
  shift
  local deadline=$(($(date +%s) + limit))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

start_server() {
  local name=$1
  shift
  "${RUN[@]}" -d --name "$name" -v "$volume:/data" -e TIDINGS_DEV=1 -e "PORT=$port" \
    -e TIDINGS_SANDBOX_DELAY_MS=200 "$@" "$image" >/dev/null
  if ! wait_for 60 curl -sf --max-time 5 "$base_url/readyz"; then
    "${PODMAN[@]}" logs "$name" 2>&1 | tail -n 20 >&2
    fail "$name was not ready within 60 s"
  fi
}

# SIGTERM, then the exit code and the seconds it took; fails past 10 s.
stop_server() {
  local name=$1
  local stop_started code
  stop_started=$(date +%s%N)
  "${PODMAN[@]}" kill --signal TERM "$name" >/dev/null
  if ! code=$(timeout 10 "${PODMAN[@]}" wait "$name"); then
    fail "$name did not exit within 10 s of SIGTERM"
  fi
  local ms=$((($(date +%s%N) - stop_started) / 1000000))
  [ "$code" = "0" ] || fail "$name exited $code after SIGTERM, not 0"
  "${PODMAN[@]}" logs "$name" 2>/dev/null | tail -n 1 | grep -q '"msg":"stopped"' ||
    fail "$name's last log line is not \"stopped\""
  say "$name drained and exited 0, $ms ms after SIGTERM"
}

api() {
  local method=$1 path=$2
  shift 2
  curl -sS --fail-with-body --max-time 10 -X "$method" "$base_url$path" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"
}

json() { node -e 'let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => { const v = JSON.parse(s)[process.argv[1]]; if (v === undefined) process.exit(1); console.log(v); });' "$1"; }

# ---------------------------------------------------------------------------------------------
# The quickstart through the container.

say "quickstart: serve on SQLite in the volume, port $port"
start_server "$run_id-1"

uid=$("${PODMAN[@]}" exec "$run_id-1" node -p 'require("node:fs").readFileSync("/proc/1/status", "utf8").match(/^Uid:\s+(\d+)/m)[1]')
[ "$uid" = "10001" ] || fail "the server runs as uid $uid, not 10001"
"${PODMAN[@]}" exec "$run_id-1" node -e 'require("node:fs").writeFileSync("/app/x", "")' 2>/dev/null &&
  fail "the server's user can write to /app"
# The image's own health check, run as the container would run it.
"${PODMAN[@]}" exec "$run_id-1" node -e "$(node -p 'JSON.parse(process.argv[1]).at(-1)' "$healthcheck")" ||
  fail "the image's health check does not pass against a ready server"

key_logs=$("${PODMAN[@]}" logs "$run_id-1" 2>&1 | grep -c '"msg":"secret key created"' || true)
[ "$key_logs" = "1" ] || fail "the first start logged the key's creation $key_logs times, not once"
"${PODMAN[@]}" exec "$run_id-1" node -e '
  const { statSync } = require("node:fs");
  const mode = statSync("/data/tidings.db.key").mode & 0o777;
  if (mode !== 0o600) throw new Error(`the key file has mode ${mode.toString(8)}`);
' || fail "no key file with mode 0600 in /data"

# The CLI through the image's entrypoint (a container of its own on the same volume), then
# through `exec` in the running one.
org=$("${RUN[@]}" --rm -v "$volume:/data" "$image" orgs create --name Acme --json | json org_id) ||
  fail "orgs create through the entrypoint"
key_json=$("${PODMAN[@]}" exec "$run_id-1" node packages/server/dist/bin.js keys create --org "$org" \
  --scopes profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage --json) ||
  fail "keys create"
token=$(printf '%s' "$key_json" | json token)
secret=$(printf '%s' "$key_json" | json webhook_signing_secret)
campaign=$("${PODMAN[@]}" exec "$run_id-1" node packages/server/dist/bin.js campaigns create --org "$org" \
  --name "Login code" --channel sms --category otp --sender Acme \
  --template 'Your Acme code is {{pin}}' --active --json | json campaign_id) ||
  fail "campaigns create"

# The example receiver on this host verifies every signature and prints each event once.
TIDINGS_WEBHOOK_SECRET="$secret" RECEIVER_PORT=0 node_modules/.bin/tsx examples/webhook-receiver/main.ts \
  >"$work/received.jsonl" 2>"$work/receiver.err" &
receiver_pid=$!
wait_for 30 grep -q 'Receiving webhooks at' "$work/receiver.err" || fail "the webhook receiver did not start"
receiver_url=$(grep -o 'http://[^ ]*' "$work/receiver.err" | head -n 1)

profile=$(api POST /v1/profiles -d '{"phone_number": "+1 415 555 0101", "first_name": "Ada", "last_name": "Lovelace"}' | json public_id) ||
  fail "POST /v1/profiles"

# Sends a message whose webhooks go to the receiver; waits until it heard message.delivered.
send_and_hear() {
  local reference=$1 sent message
  sent=$(api POST /v1/messages/send -d '{"campaign_id": "'"$campaign"'", "recipient": {"type": "phone_number", "value": "+14155550101"}, "params": {"pin": "123456"}, "client_reference": "'"$reference"'", "webhook_url": "'"$receiver_url"'"}') ||
    fail "POST /v1/messages/send: $sent"
  message=$(printf '%s' "$sent" | json message_id)
  wait_for 60 grep -q "\"topic\":\"message.delivered\".*$message" "$work/received.jsonl" ||
    {
      cat "$work/received.jsonl" "$work/receiver.err" >&2
      fail "the receiver did not get a signed message.delivered for $message within 60 s"
    }
  grep -q "\"topic\":\"message.sent\".*$message" "$work/received.jsonl" ||
    fail "the receiver did not get message.sent for $message"
  echo "$message"
}
message=$(send_and_hear login-42)
say "quickstart done: organization $org, message $message, its signed webhooks received"

stop_server "$run_id-1"

# ---------------------------------------------------------------------------------------------
# A new container on the same volume, with a read-only root file system (and, as with Docker,
# no temporary file system added): the data is there, and it still sends.

say "restart on the same volume, read-only root file system"
start_server "$run_id-2" --read-only --read-only-tmpfs=false
"${PODMAN[@]}" logs "$run_id-2" 2>&1 | grep -q '"msg":"secret key created"' &&
  fail "the key was created again after a restart"
found=$(api GET "/v1/profiles/$profile" | json first_name) || fail "the profile is gone after a restart"
[ "$found" = "Ada" ] || fail "the profile came back as $found"
status=$(api GET "/v1/messages/$message" | json status) || fail "the message is gone after a restart"
say "after the restart: profile $profile found, message $message $status"
second=$(send_and_hear after-restart)
say "sent again after the restart: $second"

# The online backup docs/production.md gives, while the server runs.
"${PODMAN[@]}" exec -w /app/packages/server "$run_id-2" node -e '
  const Database = require("better-sqlite3");
  const db = new Database("/data/tidings.db", { readonly: true });
  db.backup("/data/backup.db").then(() => db.close());' || fail "the online backup"
"${PODMAN[@]}" cp "$run_id-2:/data/backup.db" "$work/backup.db" || fail "copying the backup out"
backup_check=$(node -e '
  const Database = require(require.resolve("better-sqlite3", { paths: ["packages/server"] }));
  const db = new Database(process.argv[1], { readonly: true });
  console.log(db.pragma("integrity_check", { simple: true }), db.prepare("SELECT count(*) AS n FROM profiles").get().n);' "$work/backup.db") ||
  fail "reading the backup"
[ "$backup_check" = "ok 1" ] || fail "the backup holds $backup_check, not an intact database with the profile"
"${PODMAN[@]}" exec "$run_id-2" rm /data/backup.db
say "online backup taken and copied out: intact, with the profile"
stop_server "$run_id-2"

# ---------------------------------------------------------------------------------------------
# /data not writable: a directory the server's user cannot write, and a read-only volume.

expect_clear_error() {
  local what=$1 output code
  shift
  code=0
  output=$(timeout 60 "${RUN[@]}" --rm --name "$run_id-bad" "$@" "$image" 2>&1) || code=$?
  [ "$code" = "1" ] || fail "$what: exit code $code, not 1. Output: $output"
  printf '%s' "$output" | grep -q '/data' || fail "$what: the error does not name /data: $output"
  printf '%s' "$output" | grep -qi 'writ' || fail "$what: the error does not say it cannot write: $output"
  say "$what: exit 1, $(printf '%s' "$output" | tail -n 1 | cut -c1-240)"
}
mkdir -m 0755 "$work/root-owned"
expect_clear_error "/data owned by root" -v "$work/root-owned:/data"
# A read-only file system is waited for (a disk may come back), here 2 s rather than 30.
expect_clear_error "/data mounted read-only" -v "$volume:/data:ro" -e TIDINGS_STARTUP_TIMEOUT_MS=2000

# ---------------------------------------------------------------------------------------------

say "image: $image, $((image_bytes / 1000000)) MB on the stand-in base (the real node:20-bookworm-slim base differs)"
say "stand-in bases: $([ "$base_seconds" = 0 ] && echo "cached" || echo "made in $base_seconds s"); image build: $build_seconds s"
say "passed in $(seconds_since "$started_at") s"
