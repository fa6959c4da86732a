-- wrk script: POST the JSON body in the file $BENCH_BODY_FILE on every request,
-- and at the end print one line, "BENCH_JSON {...}", with the request count,
-- the run's duration, latency percentiles (microseconds) and every kind of
-- error wrk counts, for benchmarks/load.py to read.

local file = assert(io.open(os.getenv("BENCH_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

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
