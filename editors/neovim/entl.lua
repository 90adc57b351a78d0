-- entl for Neovim (0.7 or later): the `.entl` filetype and the `entlc lsp` language server.
--
-- Copy this file to ~/.config/nvim/lua/entl.lua and add `require("entl")` to your init.lua
-- (or `dofile` it). Set `vim.g.entlc_path` first if `entlc` is not on your PATH.

vim.filetype.add({ extension = { entl = "entl" } })
-- Neovim 0.7 uses filetype.lua only when asked to; this works on every version.
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, { pattern = "*.entl", command = "setfiletype entl" })

local clients = {} -- one server per rule-set directory, on Neovim versions without vim.lsp.start

vim.api.nvim_create_autocmd("FileType", {
  pattern = "entl",
  callback = function(args)
    vim.bo[args.buf].commentstring = "// %s"
    local file = vim.api.nvim_buf_get_name(args.buf)
    local config = {
      name = "entlc",
      cmd = { vim.g.entlc_path or "entlc", "lsp" },
      -- A rule set is the `.entl` files of one directory.
      root_dir = vim.fn.fnamemodify(file, ":p:h"),
    }
    if vim.lsp.start then
      vim.lsp.start(config, { bufnr = args.buf })
    else
      local id = clients[config.root_dir]
      if not id or vim.lsp.get_client_by_id(id) == nil then
        id = vim.lsp.start_client(config)
        clients[config.root_dir] = id
      end
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
