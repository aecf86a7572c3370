#!/usr/bin/env bash
# What each content coding costs Spindle: server CPU per request and body size for the 50 KB
# HTML page of bench/run.sh's gzip scenario, from PHP (worker) and as a static file, with
# Accept-Encoding identity, gzip, br and zstd in turn. Every compressed body is decoded and
# compared with the identity one before it is measured.
#   bench/encode.sh [DURATION]     (default 8s per coding; needs build/spindle or SPINDLE_BIN,
#                                   wrk, curl, Debian's python3-brotli and python3-zstandard)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-8s}
binary=${SPINDLE_BIN:-build/spindle}
port=18390
codings=(identity gzip br zstd)

tmp=$(mktemp -d /tmp/spindle-encode-bench.XXXXXX)
pid=
cleanup() {
  [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
cp bench/apps/gzip_php/index.php bench/apps/gzip_php/worker.php "$tmp/"
for c in "${codings[@]}"; do
  echo "wrk.headers[\"Accept-Encoding\"] = \"$c\"" >"$tmp/$c.lua"
done

"$binary" php-server --root "$tmp" --index worker.php --listen "127.0.0.1:$port" --admin off \
  --worker "$tmp/worker.php" 2>"$tmp/spindle.log" &
pid=$!
for _ in $(seq 100); do
  curl -fs -o "$tmp/page.html" "http://127.0.0.1:$port/" && break
  sleep 0.1
done
[[ -s $tmp/page.html ]] || { echo "encode.sh: the server did not answer" >&2; exit 1; }

ticks=$(getconf CLK_TCK)
cpu() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"; }

echo "| page | Accept-Encoding | req/s | CPU/req | body |"
echo "|---|---|---:|---:|---:|"
for target in / /page.html; do
  for c in "${codings[@]}"; do
    url="http://127.0.0.1:$port$target"
    curl -fsS -H "Accept-Encoding: $c" -o "$tmp/body" "$url"
    /usr/bin/python3 - "$c" "$tmp/body" "$tmp/page.html" <<'PY'
import gzip, sys, brotli, zstandard
coding, body, page = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
decode = {"identity": lambda b: b, "gzip": gzip.decompress, "br": brotli.decompress,
          "zstd": lambda b: zstandard.ZstdDecompressor().decompressobj().decompress(b)}[coding]
if decode(body) != page:
    sys.exit(f"encode.sh: the {coding} response does not decode to the page")
PY
    wrk -t1 -c32 -d2s -s "$tmp/$c.lua" "$url" >/dev/null
    before=$(cpu)
    out=$(wrk -t1 -c32 -d"$duration" -s "$tmp/$c.lua" "$url")
    after=$(cpu)
    requests=$(awk '/requests in/ { print $1 }' <<<"$out")
    rps=$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' <<<"$out")
    per=$(awk -v a="$after" -v b="$before" -v n="$requests" -v t="$ticks" \
      'BEGIN { printf "%.0f", (a - b) / t * 1e6 / n }')
    page=$([[ $target == / ]] && echo "PHP (worker)" || echo "static")
    echo "| $page | $c | $rps | $per us | $(wc -c <"$tmp/body") B |"
  done
done
