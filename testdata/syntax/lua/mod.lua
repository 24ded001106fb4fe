local M = {}

-- Finds a user.
function M.find_by_id(id)
  return nil
end

function M:save()
end

local function helper()
end

return M
