#!/usr/bin/env bash
# Installs what mmgate needs on a fresh Debian machine (run as root, or with
# sudo available). Safe to run again: it only installs what is missing.
#   scripts/setup.sh          build and run (C decoders, FFmpeg)
#   scripts/setup.sh --test   + what the tests need (Chromium for the report test)
#   scripts/setup.sh --dev    + the reference tools that regenerate golden files
#                             and run the benchmarks (Python Pillow/NumPy/jinja2,
#                             protoc, djpeg)
set -euo pipefail

runtime_pkgs=(pkg-config gcc libc6-dev libturbojpeg0-dev libjpeg62-turbo-dev libwebp-dev ffmpeg)
test_pkgs=(chromium)
dev_pkgs=(python3-pil python3-numpy python3-jinja2 python3-grpcio python3-protobuf python3-msgpack protobuf-compiler libjpeg-turbo-progs time hyperfine wrk)

pkgs=("${runtime_pkgs[@]}")
case "${1:-}" in
--test) pkgs+=("${test_pkgs[@]}") ;;
--dev) pkgs+=("${test_pkgs[@]}" "${dev_pkgs[@]}") ;;
"") ;;
*) echo "usage: scripts/setup.sh [--test|--dev]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
	sudo=""
	[[ $(id -u) -ne 0 ]] && sudo="sudo"
	echo "setup: installing ${missing[*]}" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null; then
	echo "setup: Go 1.26 is required (https://go.dev/dl/)" >&2
	exit 1
fi
go mod download
