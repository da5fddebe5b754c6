-- Registration as a client does it: create a draft (SUP-ADM-003), then submit the same form
-- with the version the create answered (SUP-ADM-007). Run with one connection per thread
-- (-t N -c N): a thread's state then belongs to one connection, whose answers come in order.
local threads = {}
local counter = 0
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  math.randomseed(os.time() * 100 + tid)
end

failures = 0
registered = 0
sample = nil
local pending = nil
local run = os.getenv("BENCH_RUN") or tostring(os.time())

-- A name of random letters: generated names sharing most of their text would trip the
-- near-duplicate check (395006), as they would for real administrators.
local letters = "abcdefghijklmnopqrstuvwxyz"
local function word(len)
  local t = {}
  for i = 1, len do
    local k = math.random(1, #letters)
    t[i] = string.sub(letters, k, k)
  end
  return table.concat(t)
end

local names = {}
local function form(n)
  local key = run .. tid .. string.format("%07d", n)
  names[n] = names[n] or (word(9) .. " " .. word(9) .. " 旅游服务有限公司")
  return '"fullName":"' .. names[n] .. '","taxNo":"91B' .. key .. '",' ..
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
    local body = "{" .. form(draft.n) .. ',"expectedUpdateTime":"' .. draft.version .. '"}'
    names[draft.n] = nil
    return wrk.format("POST", "/admin/supplier/items/" .. draft.id .. "/submit", nil, body)
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
