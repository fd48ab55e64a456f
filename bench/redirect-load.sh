#!/usr/bin/env bash
# Redirect load test (issue 4): `hoplink serve` on a fresh SQLite database
# against a minimal net/http server that 302s from an in-memory map
# (bench/minimal), with the same client (wrk), the same concurrency and the
# same request, one after the other on this machine. Prints a Markdown table
# of both servers' requests per second, p50 and p99 and their ratios, and
# the CPU time each server process used per request it answered (a figure
# that depends less on what else the machine runs), then stops serve with SIGTERM and compares the clicks written to the database
# with the redirects the clients received, and, serving again on that
# database, with the totals the analytics API reports.
#
#   bash bench/redirect-load.sh
#
# Environment: THREADS (2), CONNECTIONS (64), DURATION (15s), WARMUP (3s),
# HOPLINK_PORT (18080), MINIMAL_PORT (18081), PLAN (scale: every click is
# stored; free stores the first 10,000 of the month and only counts the
# rest, which shows the cost of writing click rows), VISITORS (desktop:
# every request a desktop browser's; mixed: iPhone Safari, Android Chrome
# and desktop Chrome in turn, a third each, which the link, an app's link,
# sends to different places and records with different devices), LINKS (1:
# every request to the one link; N spreads them over N copies of it, bench
# and bench-2 to bench-N, picked by a Zipf law of exponent 1.1 as real
# traffic is, so that the click writer's rollups of links touch many rows
# a batch; the minimal server maps the same N paths), SPOOL_COMPARE
# (unset: 1 also runs hoplink serve with --spool-dir off, clicks kept in
# memory, on a fresh database after the main run, and prints what the
# durable click spool costs in requests per second), METRICS_COMPARE
# (unset: 1 also runs hoplink serve with --metrics-addr on a fresh
# database after the main run, which runs without it, scrapes /metrics
# once, and prints both runs' requests per second, p99 and server CPU per
# request, utime + stime from /proc/PID/stat over the measured run divided
# by its requests; METRICS_PORT (18083) and METRICS_ADDR_PORT (18084) are
# its ports). Every request goes to
# 127.0.0.1. wrk is installed from Debian when it is missing and this runs as
# root; otherwise install it first. Not part of .ci/run: it takes about a
# minute and its figures depend on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-3s}
HOPLINK_PORT=${HOPLINK_PORT:-18080}
MINIMAL_PORT=${MINIMAL_PORT:-18081}
NOSPOOL_PORT=${NOSPOOL_PORT:-18082}
SPOOL_COMPARE=${SPOOL_COMPARE:-}
METRICS_PORT=${METRICS_PORT:-18083}
METRICS_ADDR_PORT=${METRICS_ADDR_PORT:-18084}
METRICS_COMPARE=${METRICS_COMPARE:-}
PLAN=${PLAN:-scale}
VISITORS=${VISITORS:-desktop}
case "$VISITORS" in desktop|mixed) ;; *) echo "redirect-load: VISITORS must be desktop or mixed" >&2; exit 1 ;; esac
LINKS=${LINKS:-1}
case "$LINKS" in ''|*[!0-9]*|0) echo "redirect-load: LINKS must be a positive number" >&2; exit 1 ;; esac
SLUG=bench
QUERY='utm_medium=social'
UA='Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
UA_IPHONE='Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1'
UA_ANDROID='Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'redirect-load: %s\n' "$*" >&2; exit 1; }

if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing wrk"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  else
    die "wrk is not installed (Debian: apt-get install wrk)"
  fi
fi
command -v curl >/dev/null 2>&1 || die "curl is not installed"

tmp=$(mktemp -d)
hoplink_pid=
minimal_pid=
nospool_pid=
metrics_pid=
cleanup() {
  # Only the processes this script started, by their ids.
  for pid in $hoplink_pid $minimal_pid $nospool_pid $metrics_pid; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

log "building hoplink, the minimal server and clickcount"
go build -o "$tmp/hoplink" ./cmd/hoplink
go build -o "$tmp/minimal" ./bench/minimal
go build -o "$tmp/clickcount" ./bench/clickcount
go build -o "$tmp/seedlinks" ./bench/seedlinks

# jfield NAME FILE prints the first string value of "NAME" in the JSON of FILE.
jfield() { sed -n 's/.*"'"$1"'": *"\([^"]*\)".*/\1/p' "$2" | head -n 1; }
# jfirst NAME FILE does the same for compact JSON, where one line holds all.
jfirst() { grep -o '"'"$1"'": *"[^"]*"' "$2" | head -n 1 | sed 's/.*: *"\([^"]*\)"/\1/'; }

# wait_http URL [HOST]: until the URL answers, for at most 30 seconds.
wait_http() {
  for _ in $(seq 1 300); do
    if curl -fsS -o /dev/null --max-time 1 -H "Host: ${2:-localhost}" "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "$1 did not answer within 30 seconds"
}

db="$tmp/hoplink.db"
# The analytics window read back after the run: from the hour before this
# one to the hour after the next, which holds every click of the run.
window_from=$(date -u -d '-1 hour' +%Y-%m-%dT%H:00:00Z)
# The scale plan's allowance (10 million clicks a month) is far above what
# one run sends, so that every click is stored rather than only counted.
"$tmp/hoplink" org create --db "$db" --name Bench --plan "$PLAN" --json >"$tmp/org.json"
key=$(jfield raw_key "$tmp/org.json")
[ -n "$key" ] || die "no key in the output of org create"

log "starting hoplink serve on 127.0.0.1:$HOPLINK_PORT"
"$tmp/hoplink" serve --db "$db" --addr "127.0.0.1:$HOPLINK_PORT" --no-bootstrap >"$tmp/serve.log" 2>&1 &
hoplink_pid=$!
wait_http "http://127.0.0.1:$HOPLINK_PORT/healthz"

api() { # api PATH BODY OUT
  curl -fsS --max-time 10 -H "Host: localhost" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -d "$2" -o "$3" "http://127.0.0.1:$HOPLINK_PORT$1"
}
api /v1/apps '{"name":"Bench"}' "$tmp/app.json"
app_id=$(jfirst id "$tmp/app.json")
api /v1/links '{"destination_url":"https://shop.example/p?id=1","slug":"'"$SLUG"'","app_id":"'"$app_id"'","utm_source":"newsletter","utm_campaign":"spring"}' "$tmp/link.json"
domain=$(jfirst domain "$tmp/link.json")
[ -n "$domain" ] || die "no domain in the created link: $(cat "$tmp/link.json")"

# The redirect a desktop visitor gets; the minimal server sends the same.
# This request is a redirect too, and records one click.
location=$(curl -fsS -o /dev/null --max-time 5 -w '%{redirect_url}' -H "Host: $domain" -A "$UA" \
  "http://127.0.0.1:$HOPLINK_PORT/$SLUG?$QUERY")
[ -n "$location" ] || die "hoplink did not redirect /$SLUG on $domain"
probes=1
if [ "$LINKS" -gt 1 ]; then
  log "copying the link into $LINKS links"
  "$tmp/seedlinks" -db "$db" -domain "$domain" -slug "$SLUG" -n "$LINKS"
  last_location=$(curl -fsS -o /dev/null --max-time 5 -w '%{redirect_url}' -H "Host: $domain" -A "$UA" \
    "http://127.0.0.1:$HOPLINK_PORT/$SLUG-$LINKS?$QUERY")
  probes=2
  [ "$last_location" = "$location" ] || die "hoplink redirects /$SLUG-$LINKS to $last_location, not $location"
fi

log "starting the minimal server on 127.0.0.1:$MINIMAL_PORT"
"$tmp/minimal" -addr "127.0.0.1:$MINIMAL_PORT" -slug "$SLUG" -slugs "$LINKS" -location "$location" &
minimal_pid=$!
wait_http "http://127.0.0.1:$MINIMAL_PORT/$SLUG" "$domain"
min_location=$(curl -fsS -o /dev/null --max-time 5 -w '%{redirect_url}' -H "Host: $domain" -A "$UA" \
  "http://127.0.0.1:$MINIMAL_PORT/$SLUG?$QUERY")
[ "$min_location" = "$location" ] || die "the minimal server redirects to $min_location, not $location"

# The wrk script sets the link domain's Host and the visitors' User-Agent
# (with VISITORS=mixed, iPhone, Android and desktop in turn), and prints one
# machine-readable line at the end.
cat >"$tmp/wrk.lua" <<'LUA'
wrk.headers["Host"] = os.getenv("BENCH_HOST")
wrk.headers["User-Agent"] = os.getenv("BENCH_UA")
local agents = { os.getenv("BENCH_UA_IPHONE"), os.getenv("BENCH_UA_ANDROID"), os.getenv("BENCH_UA") }
local turn = 0
local mixed = os.getenv("BENCH_VISITORS") == "mixed"
-- With LINKS > 1, the path of link i (bench, then bench-i) is drawn with
-- probability proportional to 1 / i^1.1, by a binary search of the
-- cumulative weights; each thread seeds its own generator.
local links = tonumber(os.getenv("BENCH_LINKS")) or 1
local paths, cdf = {}, {}
if links > 1 then
  local slug, query = os.getenv("BENCH_SLUG"), os.getenv("BENCH_QUERY")
  local sum = 0
  for i = 1, links do
    paths[i] = (i == 1 and "/" .. slug or "/" .. slug .. "-" .. i) .. "?" .. query
    sum = sum + 1 / i ^ 1.1
    cdf[i] = sum
  end
  for i = 1, links do cdf[i] = cdf[i] / sum end
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000003)
end
local function pick()
  local u, lo, hi = math.random(), 1, links
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cdf[mid] < u then lo = mid + 1 else hi = mid end
  end
  return paths[lo]
end
if mixed or links > 1 then
  request = function()
    if mixed then
      turn = turn + 1
      wrk.headers["User-Agent"] = agents[(turn % 3) + 1]
    end
    if links > 1 then
      return wrk.format(nil, pick())
    end
    return wrk.format(nil)
  end
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH requests=%d duration_us=%d status_errors=%d socket_errors=%d p50_us=%d p99_us=%d\n",
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
LUA

# run NAME PORT DURATION: one wrk run; its output goes to $tmp/NAME.txt.
run() {
  BENCH_HOST="$domain" BENCH_UA="$UA" BENCH_UA_IPHONE="$UA_IPHONE" BENCH_UA_ANDROID="$UA_ANDROID" \
    BENCH_VISITORS="$VISITORS" BENCH_LINKS="$LINKS" BENCH_SLUG="$SLUG" BENCH_QUERY="$QUERY" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$3" --latency \
    -s "$tmp/wrk.lua" "http://127.0.0.1:$2/$SLUG?$QUERY" >"$tmp/$1.txt"
}
# field NAME KEY: a value of the BENCH line of $tmp/NAME.txt.
field() { sed -n 's/^BENCH .*\b'"$2"'=\([0-9]*\).*/\1/p' "$tmp/$1.txt"; }
# cputicks PID: the CPU time the process has used, user and system, in
# clock ticks (fields 14 and 15 of /proc/PID/stat; the command name, field
# 2, is cut off first since it may hold spaces).
cputicks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# settled PID: the process's CPU time once it has stopped working after a
# run (at most one tick in half a second, for at most 30 seconds), so that the clicks
# the writer had yet to write are counted in the run's cost.
settled() {
  local before now
  before=$(cputicks "$1")
  for _ in $(seq 1 60); do
    sleep 0.5
    now=$(cputicks "$1")
    [ $((now - before)) -le 1 ] && break
    before=$now
  done
  echo "$now"
}
hz=$(getconf CLK_TCK)

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "minimal: warm-up ($WARMUP), then wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency"
run minimal-warmup "$MINIMAL_PORT" "$WARMUP"
m_cpu0=$(settled "$minimal_pid")
run minimal "$MINIMAL_PORT" "$DURATION"
m_cpu1=$(settled "$minimal_pid")
kill "$minimal_pid"; wait "$minimal_pid" 2>/dev/null || true; minimal_pid=

log "hoplink: warm-up ($WARMUP), then wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency"
run hoplink-warmup "$HOPLINK_PORT" "$WARMUP"
h_cpu0=$(settled "$hoplink_pid")
run hoplink "$HOPLINK_PORT" "$DURATION"
h_cpu1=$(settled "$hoplink_pid")
cpu_hoplink=$((h_cpu1 - h_cpu0))

log "stopping hoplink serve with SIGTERM"
kill -TERM "$hoplink_pid"
serve_status=0
for _ in $(seq 1 600); do
  kill -0 "$hoplink_pid" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$hoplink_pid" 2>/dev/null && die "hoplink serve did not stop within 60 seconds"
wait "$hoplink_pid" || serve_status=$?
hoplink_pid=
[ "$serve_status" = 0 ] || { cat "$tmp/serve.log" >&2; die "hoplink serve exited with status $serve_status"; }
"$tmp/clickcount" -db "$db" >"$tmp/clicks.json"

# The same clicks as a user reads them: serve again on the database and ask
# the analytics API for the totals of a window around the run, the clicks
# stored and those counted but not stored.
log "restarting hoplink serve to read the clicks back through the analytics API"
"$tmp/hoplink" serve --db "$db" --addr "127.0.0.1:$HOPLINK_PORT" --no-bootstrap >"$tmp/serve-after.log" 2>&1 &
hoplink_pid=$!
wait_http "http://127.0.0.1:$HOPLINK_PORT/healthz"
window_to=$(date -u -d '+2 hour' +%Y-%m-%dT%H:00:00Z)
curl -fsS --max-time 30 -H "Host: localhost" -H "Authorization: Bearer $key" -o "$tmp/analytics.json" \
  "http://127.0.0.1:$HOPLINK_PORT/v1/analytics/timeseries?interval=hour&from=$window_from&to=$window_to" ||
  die "the analytics API did not answer after the restart"
kill -TERM "$hoplink_pid"; wait "$hoplink_pid" 2>/dev/null || true; hoplink_pid=
totals=$(grep -o '"total":{[^}]*}' "$tmp/analytics.json" || true)
api_stored=$(printf '%s' "$totals" | sed -n 's/.*"clicks":\([0-9]*\).*/\1/p')
api_unstored=$(printf '%s' "$totals" | sed -n 's/.*"unstored_clicks":\([0-9]*\).*/\1/p')
[ -n "$api_stored" ] && [ -n "$api_unstored" ] || die "no totals in the analytics answer: $(cat "$tmp/analytics.json")"

for name in minimal-warmup minimal hoplink-warmup hoplink; do
  [ -n "$(field "$name" requests)" ] || { cat "$tmp/$name.txt" >&2; die "no figures from the $name run"; }
  [ "$(field "$name" status_errors)" = 0 ] || { cat "$tmp/$name.txt" >&2; die "the $name run saw answers other than 2xx or 3xx"; }
done

echo
echo "## wrk output"
for name in minimal hoplink; do
  echo
  echo "### $name"
  echo
  grep -v '^BENCH ' "$tmp/$name.txt" | sed 's/^/    /'
done

# Every figure is computed with awk from the BENCH lines.
awk -v m_req="$(field minimal requests)" -v m_dur="$(field minimal duration_us)" \
  -v m_p50="$(field minimal p50_us)" -v m_p99="$(field minimal p99_us)" \
  -v h_req="$(field hoplink requests)" -v h_dur="$(field hoplink duration_us)" \
  -v h_p50="$(field hoplink p50_us)" -v h_p99="$(field hoplink p99_us)" \
  -v h_sock="$(field hoplink socket_errors)" -v m_sock="$(field minimal socket_errors)" \
  -v m_cpu="$((m_cpu1 - m_cpu0))" -v h_cpu="$((h_cpu1 - h_cpu0))" -v hz="$hz" \
  -v threads="$THREADS" -v conns="$CONNECTIONS" -v dur="$DURATION" -v warm="$WARMUP" -v plan="$PLAN" -v visitors="$VISITORS" -v links="$LINKS" -v loadavg="$load_before" '
function ms(us) { return sprintf("%.2f ms", us / 1000) }
BEGIN {
  m_rps = m_req / (m_dur / 1e6); h_rps = h_req / (h_dur / 1e6)
  rps_ratio = h_rps / m_rps; p99_ratio = h_p99 / m_p99
  print ""
  print "## Results"
  print ""
  printf "wrk -t%s -c%s -d%s --latency, after a %s warm-up each; plan %s; visitors %s; links %s; load average before: %s\n\n", threads, conns, dur, warm, plan, visitors, links, loadavg
  print "| server | requests | requests/s | p50 | p99 | socket errors |"
  print "|---|---|---|---|---|---|"
  printf "| minimal net/http | %d | %.0f | %s | %s | %d |\n", m_req, m_rps, ms(m_p50), ms(m_p99), m_sock
  printf "| hoplink serve (SQLite, clicks recorded) | %d | %.0f | %s | %s | %d |\n", h_req, h_rps, ms(h_p50), ms(h_p99), h_sock
  print ""
  print "| ratio | value | target | met |"
  print "|---|---|---|---|"
  printf "| hoplink RPS / minimal RPS | %.2f | >= 0.80 | %s |\n", rps_ratio, (rps_ratio >= 0.80 ? "yes" : "no")
  printf "| hoplink p99 / minimal p99 | %.2f | <= 1.50 | %s |\n", p99_ratio, (p99_ratio <= 1.50 ? "yes" : "no")
  m_us = m_cpu / hz * 1e6 / m_req; h_us = h_cpu / hz * 1e6 / h_req
  print ""
  print "CPU time of each server process (user and system, /proc/PID/stat) over the timed run, until it was idle again (so the clicks written after wrk stopped count), per request it answered; it depends less than requests/s on what else the machine runs:"
  print ""
  print "| server | CPU seconds | CPU-µs per request |"
  print "|---|---|---|"
  printf "| minimal net/http | %.2f | %.1f |\n", m_cpu / hz, m_us
  printf "| hoplink serve | %.2f | %.1f |\n", h_cpu / hz, h_us
  print ""
  printf "| hoplink CPU per request / minimal CPU per request | %.2f |\n", h_us / m_us
}'

# Clicks: every redirect hoplink answered records one, stored in a click
# segment (and a row of clicks when attribution reads it) or, past the allowance or while the recorder's buffer is full, only in
# click_counts, which counts both. wrk counts only the responses it read
# before its time was up, so the database may count up to one more click
# per connection and run than the clients saw; fewer than the redirects
# seen means clicks were lost (failed batches). Rows short of the count are
# clicks the writer could not keep up with (or past the allowance).
seen=$((probes + $(field hoplink-warmup requests) + $(field hoplink requests)))
rows=$(sed -n 's/.*"clicks":\([0-9]*\).*/\1/p' "$tmp/clicks.json")
candidates=$(sed -n 's/.*"rows":\([0-9]*\).*/\1/p' "$tmp/clicks.json")
counted=$(sed -n 's/.*"counted":\([0-9]*\).*/\1/p' "$tmp/clicks.json")
slack=$((2 * CONNECTIONS))
echo
echo "## Clicks"
echo
echo "| redirects the clients received | stored clicks (segments) | of them rows of clicks | counted in click_counts | counted - received | stored / counted | analytics API after a restart: stored + unstored |"
echo "|---|---|---|---|---|---|---|"
echo "| $seen | $rows | $candidates | $counted | $((counted - seen)) | $(awk -v r="$rows" -v c="$counted" 'BEGIN { printf "%.4f", (c ? r / c : 0) }') | $api_stored + $api_unstored |"
echo
# The recorder logs failed batches, and every 10 seconds the clicks that
# found its buffer full.
if grep -Eq 'level=(WARN|ERROR)' "$tmp/serve.log"; then
  echo "Warnings and errors of hoplink serve:"
  echo
  grep -E 'level=(WARN|ERROR)' "$tmp/serve.log" | head -n 20 | sed 's/^/    /'
  echo
fi
if [ -n "$SPOOL_COMPARE" ]; then
  # The same server on a fresh database with the spool off: clicks wait in
  # memory, as before the spool (issue 16), with the same batch writer.
  db2="$tmp/nospool.db"
  "$tmp/hoplink" org create --db "$db2" --name Bench --plan "$PLAN" --json >"$tmp/org2.json"
  key2=$(jfield raw_key "$tmp/org2.json")
  log "starting hoplink serve --spool-dir off on 127.0.0.1:$NOSPOOL_PORT"
  "$tmp/hoplink" serve --db "$db2" --addr "127.0.0.1:$NOSPOOL_PORT" --no-bootstrap --spool-dir off >"$tmp/serve2.log" 2>&1 &
  nospool_pid=$!
  wait_http "http://127.0.0.1:$NOSPOOL_PORT/healthz"
  api2() { curl -fsS --max-time 10 -H "Host: localhost" -H "Authorization: Bearer $key2" \
    -H 'Content-Type: application/json' -d "$2" -o "$3" "http://127.0.0.1:$NOSPOOL_PORT$1"; }
  api2 /v1/apps '{"name":"Bench"}' "$tmp/app2.json"
  app2_id=$(jfirst id "$tmp/app2.json")
  api2 /v1/links '{"destination_url":"https://shop.example/p?id=1","slug":"'"$SLUG"'","app_id":"'"$app2_id"'","utm_source":"newsletter","utm_campaign":"spring"}' "$tmp/link2.json"
  [ "$(jfirst domain "$tmp/link2.json")" = "$domain" ] || die "the second server's link is not on $domain"
  log "hoplink --spool-dir off: warm-up ($WARMUP), then wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency"
  run nospool-warmup "$NOSPOOL_PORT" "$WARMUP"
  run nospool "$NOSPOOL_PORT" "$DURATION"
  kill -TERM "$nospool_pid"; wait "$nospool_pid" 2>/dev/null || true; nospool_pid=
  [ "$(field nospool status_errors)" = 0 ] || { cat "$tmp/nospool.txt" >&2; die "the no-spool run saw answers other than 2xx or 3xx"; }
  "$tmp/clickcount" -db "$db2" >"$tmp/clicks2.json"
  rows2=$(sed -n 's/.*"clicks":\([0-9]*\).*/\1/p' "$tmp/clicks2.json")
  counted2=$(sed -n 's/.*"counted":\([0-9]*\).*/\1/p' "$tmp/clicks2.json")
  awk -v s_req="$(field hoplink requests)" -v s_dur="$(field hoplink duration_us)" -v s_p99="$(field hoplink p99_us)" \
    -v n_req="$(field nospool requests)" -v n_dur="$(field nospool duration_us)" -v n_p99="$(field nospool p99_us)" \
    -v s_rows="$rows" -v s_counted="$counted" -v n_rows="$rows2" -v n_counted="$counted2" '
  BEGIN {
    s_rps = s_req / (s_dur / 1e6); n_rps = n_req / (n_dur / 1e6); cost = 1 - s_rps / n_rps
    print ""
    print "## What the click spool costs"
    print ""
    print "| server | requests/s | p99 | clicks stored / counted |"
    print "|---|---|---|---|"
    printf "| hoplink serve, spool on (the default) | %.0f | %.2f ms | %d / %d |\n", s_rps, s_p99 / 1000, s_rows, s_counted
    printf "| hoplink serve --spool-dir off | %.0f | %.2f ms | %d / %d |\n", n_rps, n_p99 / 1000, n_rows, n_counted
    print ""
    printf "The spool costs %.1f%% of the requests per second (target: at most 5%%): %s\n", cost * 100, (cost <= 0.05 ? "met" : "not met")
    if (n_rows < n_counted)
      print "Not comparable: without the spool, clicks that found the memory buffer full were counted without being stored, which costs the writer less."
  }'
fi
if [ -n "$METRICS_COMPARE" ]; then
  # The same server on a fresh database with --metrics-addr: every request
  # observed in the request histogram, every redirect counted by outcome.
  db3="$tmp/metrics.db"
  "$tmp/hoplink" org create --db "$db3" --name Bench --plan "$PLAN" --json >"$tmp/org3.json"
  key3=$(jfield raw_key "$tmp/org3.json")
  log "starting hoplink serve --metrics-addr 127.0.0.1:$METRICS_ADDR_PORT on 127.0.0.1:$METRICS_PORT"
  "$tmp/hoplink" serve --db "$db3" --addr "127.0.0.1:$METRICS_PORT" --no-bootstrap \
    --metrics-addr "127.0.0.1:$METRICS_ADDR_PORT" >"$tmp/serve3.log" 2>&1 &
  metrics_pid=$!
  wait_http "http://127.0.0.1:$METRICS_PORT/healthz"
  wait_http "http://127.0.0.1:$METRICS_ADDR_PORT/metrics"
  api3() { curl -fsS --max-time 10 -H "Host: localhost" -H "Authorization: Bearer $key3" \
    -H 'Content-Type: application/json' -d "$2" -o "$3" "http://127.0.0.1:$METRICS_PORT$1"; }
  api3 /v1/apps '{"name":"Bench"}' "$tmp/app3.json"
  app3_id=$(jfirst id "$tmp/app3.json")
  api3 /v1/links '{"destination_url":"https://shop.example/p?id=1","slug":"'"$SLUG"'","app_id":"'"$app3_id"'","utm_source":"newsletter","utm_campaign":"spring"}' "$tmp/link3.json"
  [ "$(jfirst domain "$tmp/link3.json")" = "$domain" ] || die "the metrics server's link is not on $domain"
  log "hoplink --metrics-addr: warm-up ($WARMUP), then wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency"
  run metrics-warmup "$METRICS_PORT" "$WARMUP"
  cpu_before=$(settled "$metrics_pid")
  run metrics "$METRICS_PORT" "$DURATION"
  cpu_metrics=$(( $(settled "$metrics_pid") - cpu_before ))
  curl -fsS --max-time 10 -o "$tmp/scrape.txt" "http://127.0.0.1:$METRICS_ADDR_PORT/metrics"
  kill -TERM "$metrics_pid"; wait "$metrics_pid" 2>/dev/null || true; metrics_pid=
  [ "$(field metrics status_errors)" = 0 ] || { cat "$tmp/metrics.txt" >&2; die "the metrics run saw answers other than 2xx or 3xx"; }
  redirects=$(sed -n 's/^hoplink_redirects_total{outcome="redirect"} \([0-9.e+]*\)$/\1/p' "$tmp/scrape.txt")
  [ -n "$redirects" ] || die "the scrape has no hoplink_redirects_total{outcome=\"redirect\"}"
  awk -v o_req="$(field hoplink requests)" -v o_dur="$(field hoplink duration_us)" -v o_p99="$(field hoplink p99_us)" \
    -v m_req="$(field metrics requests)" -v m_dur="$(field metrics duration_us)" -v m_p99="$(field metrics p99_us)" \
    -v o_cpu="$cpu_hoplink" -v m_cpu="$cpu_metrics" -v tck="$hz" -v redirects="$redirects" '
  BEGIN {
    o_rps = o_req / (o_dur / 1e6); m_rps = m_req / (m_dur / 1e6); cost = 1 - m_rps / o_rps
    # CPU per request in microseconds: ticks / CLK_TCK seconds over the requests.
    o_us = o_cpu / tck * 1e6 / o_req; m_us = m_cpu / tck * 1e6 / m_req; cpu_cost = m_us / o_us - 1
    print ""
    print "## What the metrics cost"
    print ""
    print "| server | requests | requests/s | p99 | server CPU (utime+stime) | CPU per request |"
    print "|---|---|---|---|---|---|"
    printf "| hoplink serve, no --metrics-addr (the default) | %d | %.0f | %.2f ms | %.2f s | %.1f µs |\n", o_req, o_rps, o_p99 / 1000, o_cpu / tck, o_us
    printf "| hoplink serve --metrics-addr | %d | %.0f | %.2f ms | %.2f s | %.1f µs |\n", m_req, m_rps, m_p99 / 1000, m_cpu / tck, m_us
    print ""
    printf "Metrics cost %.1f%% of the requests per second (target: at most 3%%): %s\n", cost * 100, (cost <= 0.03 ? "met" : "not met")
    printf "Metrics cost %+.1f%% CPU per request.\n", cpu_cost * 100
    printf "The scrape after the run counts %d redirects (hoplink_redirects_total{outcome=\"redirect\"}).\n", redirects
  }'
fi
if [ "$api_stored" != "$rows" ] || [ "$((api_stored + api_unstored))" != "$counted" ]; then
  echo "MISMATCH: the analytics API reports $api_stored stored and $api_unstored unstored clicks; the database holds $rows stored of $counted counted."
  exit 1
fi
if [ "$counted" -lt "$seen" ]; then
  echo "LOST: $((seen - counted)) clicks of redirects the clients received were neither written nor counted."
  exit 1
elif [ "$((counted - seen))" -gt "$slack" ]; then
  echo "UNEXPECTED: $((counted - seen)) more clicks than redirects received (at most $slack answered after wrk stopped reading)."
  exit 1
fi
echo "OK: every redirect the clients received has its click, and the analytics API reports each after a restart; the $((counted - seen)) extra were answered after wrk stopped reading."
if [ "$rows" -lt "$counted" ]; then
  echo "UNSTORED: $((counted - rows)) clicks were counted without being stored (the buffer was full, or past the allowance)."
fi
