-- wrk script: POST the JSON body in the file $BENCH_BODY_FILE on every request,
-- and at the end print one line, "BENCH_JSON {...}", with the request count,
-- the run's duration, latency percentiles (microseconds) and every kind of
-- error wrk counts, for benchmarks/load.py to read.
--
-- Optional: $BENCH_HEADERS adds headers ("Name: value", one a line);
-- $BENCH_VARY names a marker in the body that is replaced on every request by
-- a token no other request of the run carries ($BENCH_NONCE, the thread, a
-- counter), for a gateway that must see each request as a new conversation.
-- Without it the request is built once and wrk sends it as is.

local file = assert(io.open(os.getenv("BENCH_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

for line in (os.getenv("BENCH_HEADERS") or ""):gmatch("[^\n]+") do
   local name, value = line:match("^%s*([^:]+):%s*(.-)%s*$")
   if name then
      wrk.headers[name] = value
   end
end

local threads = 0

function setup(thread)
   threads = threads + 1
   thread:set("thread_id", threads)
end

local marker = os.getenv("BENCH_VARY")
if marker and marker ~= "" then
   local before, after = wrk.body:match("^(.-)" .. marker:gsub("%p", "%%%0") .. "(.*)$")
   assert(before, "BENCH_VARY marker not found in the body")
   local prefix = (os.getenv("BENCH_NONCE") or "") .. "-"
   local sent = 0

   function request()
      sent = sent + 1
      return wrk.format(nil, nil, nil, before .. prefix .. thread_id .. "-" .. sent .. after)
   end
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'BENCH_JSON {"requests": %d, "duration_us": %d, "bytes": %d, ' ..
      '"p50_us": %d, "p95_us": %d, "p99_us": %d, "max_us": %d, ' ..
      '"connect": %d, "read": %d, "write": %d, "timeout": %d, "status": %d}\n',
      summary.requests, summary.duration, summary.bytes,
      latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max,
      e.connect, e.read, e.write, e.timeout, e.status))
end
