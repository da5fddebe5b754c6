-- A status change as a client does it, over and over on a supplier of the thread's own: read
-- its detail (SUP-ADM-002) for the version and status, then suspend it or resume it
-- (SUP-ADM-043), each through its approval, applied at once by LOCAL_AUTO. The supplier is
-- registered first (create, then submit: type OTHER, so resuming needs no qualification). Run
-- with one connection per thread (-t N -c N). `moved` counts the status changes.
local figures = require("scripts.bench.wrk.figures")
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

failures = 0
moved = 0
sample = nil
local run = os.getenv("BENCH_RUN") or tostring(os.time())
local id, version, status = nil, nil, nil
local phase = "create"
local form = nil

local letters = "abcdefghijklmnopqrstuvwxyz"
local function word(len)
  local t = {}
  for i = 1, len do
    local k = math.random(1, #letters)
    t[i] = string.sub(letters, k, k)
  end
  return table.concat(t)
end

function init(args)
  math.randomseed(os.time() * 100 + tid)
  form = '"fullName":"' .. word(9) .. " " .. word(9) .. ' 状态服务有限公司","taxNo":"91S' ..
    run .. string.format("%05d", tid) .. '","types":[{"typeCode":"OTHER"}],' ..
    '"mainCooperation":"状态变更","licenseImageUrl":"https://storage.example.com/supplier/license.png"'
end

function request()
  if phase == "create" then
    return wrk.format("POST", "/admin/supplier/items", nil, "{" .. form .. "}")
  elseif phase == "submit" then
    local body = "{" .. form .. ',"expectedUpdateTime":"' .. version .. '"}'
    return wrk.format("POST", "/admin/supplier/items/" .. id .. "/submit", nil, body)
  elseif phase == "detail" then
    return wrk.format("GET", "/admin/supplier/items/" .. id)
  end
  local target = status == "ACTIVE" and "SUSPENDED" or "ACTIVE"
  local body = '{"targetStatus":"' .. target .. '","changeReason":"benchmark",' ..
    '"expectedUpdateTime":"' .. version .. '"}'
  return wrk.format("POST", "/admin/supplier/items/" .. id .. "/status", nil, body)
end

function response(code, headers, body)
  if not figures.succeeded(code, body) then
    -- Start over from the supplier's detail: the next change uses what it says.
    if id then phase = "detail" end
    return
  end
  if phase == "create" then
    id = string.match(body, '"supplierId":"(%d+)"')
    version = string.match(body, '"updateTime":"([^"]+)"')
    phase = "submit"
  elseif phase == "submit" then
    phase = "detail"
  elseif phase == "detail" then
    -- The supplier's own fields come before its children's in the detail.
    version = string.match(body, '"updateTime":"([^"]+)"')
    status = string.match(body, '"status":"(%u+)"')
    phase = "move"
  else
    moved = moved + 1
    phase = "detail"
  end
end

function done(summary, latency, requests)
  figures.report(summary, latency, threads, { "moved" })
end
