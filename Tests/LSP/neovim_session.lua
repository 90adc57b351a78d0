-- Headless Neovim session for Tests/LSP/neovim.sh: loads the user config from editors/neovim,
-- opens ENTL_FILE, waits for the diagnostics of `entlc lsp`, asks for a hover and a definition,
-- and writes what the client received to ENTL_OUT, one line each.
vim.g.entlc_path = os.getenv("ENTLC")
dofile(os.getenv("ENTL_NVIM_CONFIG"))
vim.cmd("edit " .. os.getenv("ENTL_FILE"))

local out = {}
local function emit(line) table.insert(out, line) end

if not vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
  emit("no diagnostics received")
end
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = d.user_data and d.user_data.lsp or d
  emit(string.format("diagnostic %d:%d-%d:%d %s %s %s", d.lnum, d.col, d.end_lnum, d.end_col,
    vim.diagnostic.severity[d.severity], lsp.code, d.message))
end

local uri = vim.uri_from_bufnr(0)
local function request(method, line, character)
  local params = { textDocument = { uri = uri }, position = { line = line, character = character } }
  local responses = vim.lsp.buf_request_sync(0, method, params, 10000) or {}
  for _, response in pairs(responses) do
    if response.result then return response.result end
    if response.err then return { error = response.err.message } end
  end
end

local hover = request("textDocument/hover", 10, 13)
emit("hover " .. (hover and hover.contents.value:gsub("\n", "\\n") or "none"))
local definition = request("textDocument/definition", 11, 10)
for _, location in ipairs(definition or {}) do
  emit(string.format("definition %s %d:%d-%d:%d", vim.fn.fnamemodify(vim.uri_to_fname(location.uri), ":t"),
    location.range.start.line, location.range.start.character, location.range["end"].line,
    location.range["end"].character))
end

vim.fn.writefile(out, os.getenv("ENTL_OUT"))
vim.cmd("qa!")
