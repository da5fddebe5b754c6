-- Counts answers that are not HTTP 200 success envelopes, and prints the figures as one JSON line.
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

failures = 0
sample = nil

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"success":true', 1, true) then
    failures = failures + 1
    if sample == nil then sample = string.sub(body, 1, 200) end
  end
end

function done(summary, latency, requests)
  local f, s = 0, ""
  for _, t in ipairs(threads) do
    f = f + t:get("failures")
    local ts = t:get("sample")
    if ts ~= nil and s == "" then s = ts end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"failures":%d,"socketErrors":%d,"sample":%q}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    f + e.status, e.connect + e.read + e.write + e.timeout, s))
end
