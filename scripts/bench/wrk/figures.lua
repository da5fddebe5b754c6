-- What the benchmark's wrk scripts share: counting the answers that are not success envelopes
-- (in each thread's globals `failures` and `sample`), and printing wrk's figures with those
-- counts as the one JSON line scripts/bench/run.ts reads. wrk runs from the repository root, so
-- the scripts load this with require("scripts.bench.wrk.figures").
local figures = {}

-- Whether the answer is an HTTP 200 success envelope; if not, it is counted and the first kept.
function figures.succeeded(status, body)
  if status == 200 and string.find(body, '"success":true', 1, true) then return true end
  failures = failures + 1
  if sample == nil then sample = string.sub(body, 1, 200) end
  return false
end

-- The BENCH_JSON line: wrk's summary, the threads' failures and first sample, and the sum over
-- the threads of each global named in `counters`.
function figures.report(summary, latency, threads, counters)
  local f, s, extra = 0, "", ""
  for _, t in ipairs(threads) do
    f = f + t:get("failures")
    local ts = t:get("sample")
    if ts ~= nil and s == "" then s = ts end
  end
  for _, name in ipairs(counters or {}) do
    local total = 0
    for _, t in ipairs(threads) do total = total + t:get(name) end
    extra = extra .. string.format('"%s":%d,', name, total)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"failures":%d,"socketErrors":%d,%s"sample":%q}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    f + e.status, e.connect + e.read + e.write + e.timeout, extra, s))
end

return figures
