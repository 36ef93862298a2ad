// The Lua scripts of RunBudget. Amounts are whole units of 1e-8 yuan (the ledger's precision), so
// Redis adds integers and a total never drifts. Keys: the run's budget hash (max, spent, held), the
// item's holds hash (field EXEC:N per hold, credit:EXEC for holds adopted from an earlier
// execution of the item), the run's halt hash (reason "budget" once the run was stopped by it) and
// the run's refundable hash (request id -> amount of each settled bill the gateway may refund).

/** KEYS budget, holds, halt; ARGV execution, hold id, amount. Returns {granted, max, spent, held, stopped}. */
export const HOLD = `
local max = tonumber(redis.call("HGET", KEYS[1], "max") or "-1")
local spent = tonumber(redis.call("HGET", KEYS[1], "spent") or "0")
local held = tonumber(redis.call("HGET", KEYS[1], "held") or "0")
if redis.call("HGET", KEYS[3], "reason") == "budget" then return {0, max, spent, held, 1} end
local amount = tonumber(ARGV[3])
local creditField = "credit:" .. ARGV[1]
local credit = tonumber(redis.call("HGET", KEYS[2], creditField) or "0")
local take = math.min(credit, amount)
local need = amount - take
-- What credit covers is held already (it may have been billed to a dead execution): it always passes.
if need > 0 and max >= 0 and spent + held + need > max then return {0, max, spent, held, 0} end
if take > 0 then
  if take == credit then redis.call("HDEL", KEYS[2], creditField) else redis.call("HINCRBY", KEYS[2], creditField, -take) end
end
redis.call("HSET", KEYS[2], ARGV[2], amount)
redis.call("HINCRBY", KEYS[1], "held", need)
return {1, max, spent, held + need, 0}`;

// Drops hold ARGV[1] and what it held from the budget's held; `amount` is that (0 when it is gone).
const DROP_HOLD = `
local amount = tonumber(redis.call("HGET", KEYS[2], ARGV[1]) or "0")
if amount > 0 then
  redis.call("HDEL", KEYS[2], ARGV[1])
  redis.call("HINCRBY", KEYS[1], "held", -amount)
end`;

/**
 * KEYS budget, holds, refundable; ARGV hold id, actual cost, and the bill's request id when the
 * gateway may refund it (kept for REFUND). The hold may be gone (adopted by a newer execution): the cost still counts.
 */
export const SETTLE = `${DROP_HOLD}
redis.call("HINCRBY", KEYS[1], "spent", tonumber(ARGV[2]))
if ARGV[3] ~= nil and tonumber(ARGV[2]) > 0 then redis.call("HSET", KEYS[3], ARGV[3], ARGV[2]) end
return amount`;

/** KEYS budget, holds; ARGV hold id. */
export const RELEASE = `${DROP_HOLD}
return amount`;

/**
 * KEYS budget, refundable; ARGV request id. The gateway refunded a settled bill (a failed music job):
 * spent goes back down by what was settled for it, once, whichever execution of the item reports it.
 * A bill never settled here (an entry from before the run had a budget) changes nothing. Never below
 * 0, which would let the run spend past its cap. Returns the amount taken off.
 */
export const REFUND = `
local settled = tonumber(redis.call("HGET", KEYS[2], ARGV[1]) or "0")
if settled <= 0 then return 0 end
redis.call("HDEL", KEYS[2], ARGV[1])
local spent = tonumber(redis.call("HGET", KEYS[1], "spent") or "0")
local amount = math.min(settled, spent)
if amount > 0 then redis.call("HINCRBY", KEYS[1], "spent", -amount) end
return amount`;

/**
 * KEYS budget, holds; ARGV execution. A new execution of the item takes over every hold left by
 * earlier ones as its credit: held stays the same, so money a dead worker may have been billed for
 * stays counted until this execution ends. Returns {has budget, adopted amount}.
 */
export const ADOPT = `
local fields = redis.call("HGETALL", KEYS[2])
local sum = 0
for i = 2, #fields, 2 do sum = sum + tonumber(fields[i]) end
redis.call("DEL", KEYS[2])
if sum > 0 then redis.call("HSET", KEYS[2], "credit:" .. ARGV[1], sum) end
return {redis.call("HEXISTS", KEYS[1], "max"), sum}`;

/** KEYS budget, holds; ARGV execution. Drops the execution's unused credit and any hold it left open. Returns the amount released. */
export const CLOSE = `
local fields = redis.call("HGETALL", KEYS[2])
local credit = "credit:" .. ARGV[1]
local prefix = ARGV[1] .. ":"
local sum = 0
for i = 1, #fields, 2 do
  local field = fields[i]
  if field == credit or string.sub(field, 1, #prefix) == prefix then
    sum = sum + tonumber(fields[i + 1])
    redis.call("HDEL", KEYS[2], field)
  end
end
if sum > 0 then redis.call("HINCRBY", KEYS[1], "held", -sum) end
return sum`;
