#!/usr/bin/env bash
# Runs the TypeScript SDK client check (client.mjs) against a fresh
# `hoplink serve` on SQLite in a temporary directory, through the public
# URL (127.0.0.1) and through localhost.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
tmp=$(mktemp -d)
port=${HOPLINK_NODE_CHECK_PORT:-18089}
base="http://127.0.0.1:$port"
cleanup() {
  if [ -n "${pid:-}" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

(cd ../.. && go build -o "$tmp/hoplink" ./cmd/hoplink)
db="$tmp/hoplink.db"
"$tmp/hoplink" migrate --db "$db" >/dev/null
org=$("$tmp/hoplink" org create --db "$db" --name Acme --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).organization.id))')
printf 'correct horse battery staple' | "$tmp/hoplink" user create --db "$db" --email node@example.com --password-stdin >/dev/null
"$tmp/hoplink" member add --db "$db" --org "$org" --email node@example.com --role owner >/dev/null

"$tmp/hoplink" serve --db "$db" --addr "127.0.0.1:$port" --public-url "$base" --no-bootstrap \
  --log-level warn >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if curl -fsS "$base/healthz" >/dev/null 2>&1; then break; fi
  sleep 0.1
done

[ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null
# Once through the public URL, once through localhost, another service
# host: the SDK then finds the resource http://localhost:PORT/mcp in the
# metadata, which it requires to be the URL it connected to.
for url in "$base/mcp" "http://localhost:$port/mcp"; do
  if ! node "$here/client.mjs" "$url" node@example.com 'correct horse battery staple'; then
    echo "--- serve log"; cat "$tmp/serve.log"; exit 1
  fi
done
