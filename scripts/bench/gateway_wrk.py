#!/usr/bin/python3
"""The load and the summary of scripts/bench_gateway_wrk.sh.

    gateway_wrk.py bodies IMAGE_DIR OUT_DIR [--model M] [--max-tokens N]
        one non-streaming chat request body per image (body0000.json …,
        image as a base64 data: URL, then a text part), in name order;
    gateway_wrk.py load --mmgate BIN --url URL --bodies DIR --count N
        [--duration 30s] [--threads 2] [--connections 8] [--probe-interval 10ms]
        runs `mmgate bench probe` (the text-only probe, a process of its
        own) and wrk with scripts/bench/wrk_chat.lua against URL at the same
        time, and prints one JSON object: wrk's counts, errors and latency
        percentiles, and the probes' latencies;
    gateway_wrk.py summary LOAD_JSON REFERENCE_JSON [--commit C]
        prints the ratios against the targets.

Run it with Debian's /usr/bin/python3.
"""

import argparse
import base64
import json
import math
import mimetypes
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SPEEDUP_TARGET = 8.0
ISOLATION_TARGET = 0.10


def bodies(a):
    names = sorted(n for n in os.listdir(a.images) if os.path.isfile(os.path.join(a.images, n)))
    os.makedirs(a.out, exist_ok=True)
    for k, n in enumerate(names):
        with open(os.path.join(a.images, n), "rb") as f:
            data = base64.b64encode(f.read()).decode()
        mime = mimetypes.guess_type(n)[0] or "image/jpeg"
        body = {"model": a.model, "max_tokens": a.max_tokens, "stream": False, "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:%s;base64,%s" % (mime, data)}},
            {"type": "text", "text": "Describe this image."}]}]}
        with open(os.path.join(a.out, "body%04d.json" % k), "w") as f:
            json.dump(body, f, separators=(",", ":"))
    print(len(names))


def seconds(s):
    for unit, mul in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0), ("m", 60.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * mul
    return float(s)


def nearest_rank(xs, p):
    """The p-th percentile by nearest rank, as internal/tools/stats defines it."""
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[max(0, math.ceil(p / 100 * len(xs)) - 1)]


def load(a):
    probe = subprocess.Popen([a.mmgate, "bench", "probe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    cfg = {"url": a.url, "model": a.model, "max_tokens": a.max_tokens, "probe_text": "Say hello.",
           "probe_interval": int(seconds(a.probe_interval) * 1e9), "request_timeout": int(30e9), "warm_up": True}
    probe.stdin.write(json.dumps(cfg) + "\n")
    probe.stdin.flush()
    if probe.stdout.readline() != "ready\n":
        probe.kill()
        sys.exit("gateway_wrk.py: the probe process did not get ready")
    cmd = ["wrk", "-t%d" % a.threads, "-c%d" % a.connections, "-d%s" % a.duration, "--timeout", "30s",
           "-s", os.path.join(HERE, "wrk_chat.lua"), a.url + "/v1/chat/completions", "--", a.bodies, str(a.count)]
    wrk = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    probe.stdin.write("go\n")
    probe.stdin.flush()
    t0 = time.monotonic()
    wout, _ = wrk.communicate()
    wall = time.monotonic() - t0
    probe.stdin.close()
    probes = json.loads(probe.stdout.read() or "null") or []
    if probe.wait() != 0 or wrk.returncode != 0:
        sys.exit("gateway_wrk.py: wrk exited with %d, the probe process with %d\n%s" % (wrk.returncode, probe.returncode, wout))
    line = [l for l in wout.splitlines() if l.startswith("WRKJSON ")]
    if not line:
        sys.exit("gateway_wrk.py: no WRKJSON line from wrk:\n" + wout)
    w = json.loads(line[-1][len("WRKJSON "):])
    ok = [p["latency_ns"] / 1e6 for p in probes if p["status"] == 200]
    res = {
        "wrk": w, "wrk_command": " ".join(cmd), "wall_seconds": round(wall, 3),
        "requests_per_second": round(w["requests"] / (w["duration_us"] / 1e6), 3),
        "errors": sum(w["errors"].values()),
        "image_latency_ms": {k: round(v / 1e3, 3) for k, v in w["latency_us"].items()},
        "text_probe": {"count": len(probes), "ok": len(ok), "failed": len(probes) - len(ok),
                       "latency_ms": {"p50": nearest_rank(ok, 50), "p99": nearest_rank(ok, 99), "max": max(ok, default=float("nan"))}},
    }
    json.dump(res, sys.stdout, indent=1)
    print()


def summary(a):
    g = json.load(open(a.load))
    r = json.load(open(a.reference))
    speed = g["requests_per_second"] / r["images_per_second"]
    p50 = g["image_latency_ms"]["p50"]
    p99 = g["text_probe"]["latency_ms"]["p99"]
    iso = p99 / p50 if p50 else float("nan")
    errors = g["errors"] + g["text_probe"]["failed"]

    def ok(b):
        return "met" if b else "MISSED"
    print("commit %s" % (a.commit or "?"))
    print("gateway:   %.2f images/s under wrk (%s), %d requests in %.1f s"
          % (g["requests_per_second"], g["wrk_command"].split(" -s ")[0], g["wrk"]["requests"], g["wrk"]["duration_us"] / 1e6))
    print("python:    %.2f images/s (%d images, one process, %s)"
          % (r["images_per_second"], r["images"], ", ".join("%s %.1f ms" % kv for kv in r["stage_mean_ms"].items())))
    print("speed-up:  %.2fx (target >= %g: %s)" % (speed, SPEEDUP_TARGET, ok(speed >= SPEEDUP_TARGET)))
    print("latency:   image p50 %.1f ms p90 %.1f ms p99 %.1f ms; text probe p50 %.2f ms p99 %.2f ms (%d probes)"
          % (p50, g["image_latency_ms"]["p90"], g["image_latency_ms"]["p99"],
             g["text_probe"]["latency_ms"]["p50"], p99, g["text_probe"]["count"]))
    print("isolation: text p99 / image p50 = %.3f (target <= %g: %s)" % (iso, ISOLATION_TARGET, ok(iso <= ISOLATION_TARGET)))
    print("errors:    %d (wrk %s, failed probes %d; required 0: %s)"
          % (errors, json.dumps(g["wrk"]["errors"]), g["text_probe"]["failed"], ok(errors == 0)))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"commit": a.commit, "images_per_second": g["requests_per_second"],
                       "python_images_per_second": r["images_per_second"], "speedup": round(speed, 3),
                       "speedup_target": SPEEDUP_TARGET, "image_latency_p50_ms": p50, "text_probe_latency_p99_ms": p99,
                       "probe_p99_over_image_p50": round(iso, 4), "isolation_target": ISOLATION_TARGET,
                       "errors": errors}, f, indent=1)
    return 0 if errors == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bodies")
    b.add_argument("images")
    b.add_argument("out")
    b.add_argument("--model", default="qwen3-vl")
    b.add_argument("--max-tokens", type=int, default=128)
    l = sub.add_parser("load")
    l.add_argument("--mmgate", required=True)
    l.add_argument("--url", required=True)
    l.add_argument("--bodies", required=True)
    l.add_argument("--count", type=int, required=True)
    l.add_argument("--duration", default="30s")
    l.add_argument("--threads", type=int, default=2)
    l.add_argument("--connections", type=int, default=8)
    l.add_argument("--probe-interval", default="10ms")
    l.add_argument("--model", default="qwen3-vl")
    l.add_argument("--max-tokens", type=int, default=128)
    s = sub.add_parser("summary")
    s.add_argument("load")
    s.add_argument("reference")
    s.add_argument("--commit", default="")
    s.add_argument("--out", default="")
    a = ap.parse_args()
    return {"bodies": bodies, "load": load, "summary": summary}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())
