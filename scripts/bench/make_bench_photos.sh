#!/usr/bin/env bash
# Makes the three 2560x1600 JPEGs the preprocessing benchmark runs on, from
# the Debian wallpaper photos in testdata/photos (provenance and licences in
# its README), into OUT_DIR:
#
#   444_baseline.jpg     Garden.jpg re-encoded by cjpeg: quality 92, 4:4:4, baseline
#   420_baseline.jpg     Aqua.jpg as it is (4:2:0, baseline)
#   422_progressive.jpg  YellowFlower.jpg re-encoded by cjpeg: quality 92, 4:2:2, progressive
#
# djpeg and cjpeg are libjpeg-turbo's (Debian libjpeg-turbo-progs); the same
# version gives the same bytes. Usage: scripts/bench/make_bench_photos.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: make_bench_photos.sh OUT_DIR}
mkdir -p "$out"
photos=testdata/photos
djpeg -ppm "$photos/Garden.jpg" | cjpeg -quality 92 -sample 1x1 -optimize -outfile "$out/444_baseline.jpg"
cp "$photos/Aqua.jpg" "$out/420_baseline.jpg"
djpeg -ppm "$photos/YellowFlower.jpg" | cjpeg -quality 92 -sample 2x1 -progressive -outfile "$out/422_progressive.jpg"
