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

-- Names drawn the way real ones are (企业名称登记管理规定): a region, a trade name (字号) of two
-- or three characters, the line of business and the legal form, from the parts scripts/bench/names.ts
-- writes to the Lua file BENCH_NAMES names (npm run bench sets it). When one does look like an
-- existing company (395006), the client confirms with the token, as an administrator who checked
-- the candidates would, and counts it.
local parts_file = os.getenv("BENCH_NAMES")
if not parts_file then error("BENCH_NAMES is not set: run this script through npm run bench") end
local parts = dofile(parts_file)
local function pick(list) return list[math.random(1, #list)] end
local function tradeName()
  local n = math.random(1, 10) <= parts.three_in_ten and 3 or 2
  local t = {}
  for i = 1, n do t[i] = pick(parts.trade) end
  return table.concat(t)
end
local function companyName()
  return pick(parts.regions) .. tradeName() .. pick(parts.industries) .. pick(parts.forms)
end

confirmed = 0
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
local tokens = {}
local function form(n)
  local key = run .. tid .. string.format("%07d", n)
  local taxNo = uscc(string.format("91%06d%02d%07d", tonumber(run) % 1000000, tid, n))
  names[n] = names[n] or companyName()
  local token = tokens[n] and (',"duplicateConfirmToken":"' .. tokens[n] .. '"') or ""
  return '"fullName":"' .. names[n] .. '","taxNo":"' .. taxNo .. '",' ..
    '"types":[{"typeCode":"OTHER"}],"mainCooperation":"导游与门票",' ..
    '"licenseImageUrl":"https://storage.example.com/supplier/license.png",' ..
    '"initialAccounts":[{"accountType":"CORPORATE","bankName":"工商银行杭州分行",' ..
    '"accountNo":"6222' .. key .. '","settleMode":"MONTHLY","accountPeriod":30,' ..
    '"invoiceType":"SPECIAL","taxRate":6}]' .. token
end

-- The create to send again with its confirm token, after a 395006.
local confirming = nil
-- The draft whose submit is on the wire: a submit can meet a company registered since the create
-- (another client's), and is then confirmed and sent again, as the create is.
local submitting = nil

function request()
  local draft = pending
  if draft then
    pending = nil
    submitting = draft
    local body = "{" .. form(draft.n) .. ',"expectedUpdateTime":"' .. draft.version .. '"}'
    return wrk.format("POST", "/admin/supplier/items/" .. draft.id .. "/submit", nil, body)
  end
  if confirming then
    local n = confirming
    confirming = nil
    return wrk.format("POST", "/admin/supplier/items", nil, "{" .. form(n) .. "}")
  end
  counter = counter + 1
  return wrk.format("POST", "/admin/supplier/items", nil, "{" .. form(counter) .. "}")
end

local function forget(n)
  names[n] = nil
  tokens[n] = nil
end

function response(status, headers, body)
  local draft = submitting
  submitting = nil
  local token = string.match(body, '"code":395006.-"duplicateConfirmToken":"([^"]+)"')
  if status == 200 and token then
    -- The same company? An administrator looks, and confirms: the request goes again with the
    -- token, once.
    if draft and not draft.confirmed then
      draft.confirmed = true
      tokens[draft.n] = token
      pending = draft
      confirmed = confirmed + 1
      return
    elseif not draft and not tokens[counter] then
      tokens[counter] = token
      confirming = counter
      confirmed = confirmed + 1
      return
    end
  end
  if not figures.succeeded(status, body) then
    forget(draft and draft.n or counter)
    return
  end
  local id = string.match(body, '"supplierId":"(%d+)"')
  local version = string.match(body, '"updateTime":"([^"]+)"')
  local status = string.match(body, '"status":"(%u+)"')
  if status == "DRAFT" and id and version then
    pending = { id = id, version = version, n = counter }
  else
    registered = registered + 1
    if draft then forget(draft.n) end
  end
end

function done(summary, latency, requests)
  figures.report(summary, latency, threads, { "registered", "confirmed" })
end
