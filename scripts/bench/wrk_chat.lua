-- wrk script for scripts/bench_gateway_wrk.sh: each thread loads the
-- prepared request bodies DIR/body0000.json … (wrk arguments after "--":
-- DIR COUNT), formats every request once, and sends them in turn, each
-- thread starting at its own offset so that the threads do not send the
-- same image at the same moment. At the end it prints one line
-- "WRKJSON {…}" with the counts, the errors and the latency percentiles
-- (microseconds) for the driver to read.

local threads = 0

function setup(thread)
	thread:set("tid", threads)
	threads = threads + 1
end

local requests = {}
local n = 0
local next = 0

function init(args)
	local dir, count = args[1], tonumber(args[2])
	assert(dir and count and count > 0, "usage: wrk … -s wrk_chat.lua URL -- BODY_DIR COUNT")
	for k = 0, count - 1 do
		local f = assert(io.open(string.format("%s/body%04d.json", dir, k), "rb"))
		local body = f:read("*a")
		f:close()
		requests[k + 1] = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
	end
	n = count
	next = (tid * 37) % n
end

function request()
	next = next % n + 1
	return requests[next]
end

function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format(
		'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
		'"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
		'"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
		summary.requests, summary.duration, summary.bytes,
		e.connect, e.read, e.write, e.status, e.timeout,
		latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
