-- Registration as a client does it: create a draft (SUP-ADM-003), then submit the same form
-- with the version the create answered (SUP-ADM-007). Run with one connection per thread
-- (-t N -c N): a thread's state then belongs to one connection, whose answers come in order.
local figures = require("scripts.bench.wrk.figures")
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
  if not figures.succeeded(status, body) then return end
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
  figures.report(summary, latency, threads, { "registered" })
end
