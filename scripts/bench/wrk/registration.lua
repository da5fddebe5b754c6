-- Registration as a client does it: create a draft (SUP-ADM-003), then submit the same form
-- with the version the create answered (SUP-ADM-007). Run with one connection per thread
-- (-t N -c N): a thread's state then belongs to one connection, whose answers come in order.
local threads = {}
local counter = 0
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

failures = 0
registered = 0
sample = nil
local pending = nil
local run = os.getenv("BENCH_RUN") or tostring(os.time())

local function form(n)
  local key = run .. tid .. string.format("%07d", n)
  return '"fullName":"基准旅游服务有限公司' .. key .. '","taxNo":"91B' .. key .. '",' ..
    '"types":[{"typeCode":"OTHER"}],"mainCooperation":"导游与门票",' ..
    '"licenseImageUrl":"https://storage.example.com/supplier/license.png",' ..
    '"initialAccounts":[{"accountType":"CORPORATE","bankName":"工商银行杭州分行",' ..
    '"accountNo":"6222' .. key .. '","settleMode":"MONTHLY","accountPeriod":30,' ..
    '"invoiceType":"SPECIAL","taxRate":6}]'
end

function request()
  local draft = pending
  if draft then
    pending = nil
    return wrk.format("POST", "/admin/supplier/items/" .. draft.id .. "/submit", nil,
      "{" .. form(draft.n) .. ',"expectedUpdateTime":"' .. draft.version .. '"}')
  end
  counter = counter + 1
  return wrk.format("POST", "/admin/supplier/items", nil, "{" .. form(counter) .. "}")
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"success":true', 1, true) then
    failures = failures + 1
    if sample == nil then sample = string.sub(body, 1, 200) end
    return
  end
  local id = string.match(body, '"supplierId":"(%d+)"')
  local version = string.match(body, '"updateTime":"([^"]+)"')
  local status = string.match(body, '"status":"(%u+)"')
  if status == "DRAFT" and id and version then
    pending = { id = id, version = version, n = counter }
  else
    registered = registered + 1
  end
end

function done(summary, latency, requests)
  local f, r, s = 0, 0, ""
  for _, t in ipairs(threads) do
    f = f + t:get("failures")
    r = r + t:get("registered")
    local ts = t:get("sample")
    if ts ~= nil and s == "" then s = ts end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"failures":%d,"socketErrors":%d,"registered":%d,"sample":%q}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    f + e.status, e.connect + e.read + e.write + e.timeout, r, s))
end
