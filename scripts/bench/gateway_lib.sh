# Shared by scripts/bench_gateway.sh and scripts/bench_gateway_wrk.sh
# (sourced, not run): a work directory, a private shared-memory directory,
# the build, and one `mmgate serve --embedded-worker` process on a free
# loopback port. Functions set these variables:
#   work  temporary directory (removed on exit unless OUT is set)
#   out   where reports and the gateway's log go (OUT, else work)
#   gw    the gateway's pid while it runs
#   url   http://127.0.0.1:PORT once it is ready
PY=/usr/bin/python3

bench_setup() {
	work=$(mktemp -d /tmp/mmgate-bench-gw-XXXXXX)
	local shmbase=/dev/shm
	[ -d "$shmbase" ] || shmbase=$work
	shm=$(mktemp -d "$shmbase/mmgate-bench-gw-XXXXXX")
	out=${OUT:-$work}
	mkdir -p "$out"
	gw=""
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

bench_cleanup() {
	bench_stop_gateway
	rm -rf "$shm"
	if [ -z "${OUT:-}" ]; then rm -rf "$work"; fi
}

bench_build() {
	echo "building mmgate…" >&2
	timeout 300 go build -o "$work/mmgate" ./cmd/mmgate
}

# bench_commit prints the short commit, with "+dirty" when tracked files
# differ from it.
bench_commit() {
	local c
	c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then c="$c+dirty"; fi
	echo "$c"
}

# bench_start_gateway ARGS… starts `mmgate serve --embedded-worker
# --embedded-fingerprint crc32c ARGS…` and waits until it is ready.
bench_start_gateway() {
	local port ready=""
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	url="http://127.0.0.1:$port"
	"$work/mmgate" serve --embedded-worker --embedded-fingerprint crc32c "$@" \
		--listen "127.0.0.1:$port" --shm-dir "$shm" --health-interval 200ms \
		>"$out/serve.log" 2>&1 &
	gw=$!
	for _ in $(seq 1 150); do
		if curl -fsS "$url/health/ready" >/dev/null 2>&1; then ready=1; break; fi
		if ! kill -0 "$gw" 2>/dev/null; then break; fi
		sleep 0.2
	done
	if [ -z "$ready" ]; then
		echo "$(basename "$0"): the gateway did not become ready; its log:" >&2
		cat "$out/serve.log" >&2
		exit 1
	fi
}

bench_stop_gateway() {
	if [ -n "${gw:-}" ] && kill -0 "$gw" 2>/dev/null; then
		kill -TERM "$gw" 2>/dev/null || true
		wait "$gw" 2>/dev/null || true
	fi
	gw=""
}
