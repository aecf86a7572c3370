-- The soak mix for wrk: hello, a $_SERVER echo and a 64 KiB upload in turn; each response is
-- checked, and a wrong one is reported on stderr. Run by bench/soak.sh in 30 s rounds.
local requests = {}
local expected = {}
local sent = 0

function init(args)
  local body = string.rep("spindle-", 8192)  -- 64 KiB
  requests[1] = wrk.format("GET", "/")
  requests[2] = wrk.format("GET", "/vars?name=soak")
  requests[3] = wrk.format("POST", "/upload", {["Content-Type"] = "application/octet-stream"}, body)
  expected[1] = "Hello, World!\n"
  expected[2] = "name=soak\n"
  expected[3] = "upload 65536 "
end

function request()
  sent = sent + 1
  return requests[(sent - 1) % 3 + 1]
end

function response(status, headers, body)
  -- Responses on one connection come back in order, but connections interleave; the body
  -- itself says which request it answers.
  local ok = status == 200 and (body == expected[1] or body:find(expected[2], 1, true)
      or body:sub(1, #expected[3]) == expected[3])
  if not ok then
    io.stderr:write("soak: unexpected response " .. status .. ": " .. body:sub(1, 80) .. "\n")
  end
end
