-- wrk script: each request posts FOD_BATCH fixes (unique client ids) to one of the devices in
-- the file given as the first script argument (lines "deviceId deviceToken"), round-robin.
local devices = {}
local counter = 0
tid = 0  -- set per thread by setup() (a global: thread:set writes globals)
local batch = tonumber(os.getenv("FOD_BATCH") or "100")
local base = tonumber(os.getenv("FOD_BASE_MS"))
-- FOD_RUN prefixes the client ids, so that repeated runs into one database are not duplicates.
local run = os.getenv("FOD_RUN") or ""
local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  for line in io.lines(args[1]) do
    local id, token = line:match("(%S+) (%S+)")
    devices[#devices + 1] = { id = id, token = token }
  end
end

function request()
  counter = counter + 1
  local d = devices[(counter + tid) % #devices + 1]
  local parts = {}
  for i = 1, batch do
    local k = (tid * 100000000) + counter * batch + i
    local lon = ((k * 7919) % 360000) / 1000 - 180
    local lat = ((k * 104729) % 170000) / 1000 - 85
    parts[i] = string.format('{"location":[%.3f,%.3f],"timestamp":%d,"id":"%s%d-%d-%d"}', lon, lat, base + (k % 3000000), run, tid, counter, i)
  end
  local body = batch == 1 and parts[1] or ('{"locations":[' .. table.concat(parts, ",") .. ']}')
  return wrk.format("POST", "/v1/devices/" .. d.id .. "/locations",
    { ["Authorization"] = "Bearer " .. d.token, ["Content-Type"] = "application/json" }, body)
end
