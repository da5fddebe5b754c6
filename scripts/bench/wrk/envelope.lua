-- Counts answers that are not HTTP 200 success envelopes, and prints the figures as one JSON line.
local figures = require("scripts.bench.wrk.figures")
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

failures = 0
sample = nil

function response(status, headers, body)
  figures.succeeded(status, body)
end

function done(summary, latency, requests)
  figures.report(summary, latency, threads)
end
