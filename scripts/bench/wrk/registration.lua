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

-- A unified social credit code and its check character (GB 32100-2015; the service refuses a
-- wrong one): the same rule as withCheckCharacter in src/domain/supplier/uscc.ts.
local alphabet = "0123456789ABCDEFGHJKLMNPQRTUWXY"
local weights = { 1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28 }
local function uscc(first17)
  local sum = 0
  for i = 1, 17 do
    sum = sum + (string.find(alphabet, string.sub(first17, i, i), 1, true) - 1) * weights[i]
  end
  local check = (31 - sum % 31) % 31 + 1
  return first17 .. string.sub(alphabet, check, check)
end

local names = {}
local function form(n)
  local key = run .. tid .. string.format("%07d", n)
  local taxNo = uscc(string.format("91%06d%02d%07d", tonumber(run) % 1000000, tid, n))
  names[n] = names[n] or (word(9) .. " " .. word(9) .. " 旅游服务有限公司")
  return '"fullName":"' .. names[n] .. '","taxNo":"' .. taxNo .. '",' ..
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
