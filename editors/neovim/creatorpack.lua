-- creatorpack lsp in Neovim 0.7 and later, without plugins: start (or reuse) the server for every
-- JSON buffer; the server checks the buffers that declare a protocol_version and leaves the rest.
-- docs/editors.md has the shorter forms for Neovim 0.8+ (vim.lsp.start), 0.11+ (vim.lsp.config)
-- and nvim-lspconfig. editors/screenshot.sh loads this file.
local cmd = { vim.env.CREATORPACK or "creatorpack", "lsp" }
local client_id = nil

vim.api.nvim_create_autocmd("FileType", {
  pattern = "json",
  callback = function(args)
    if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
      local file = vim.api.nvim_buf_get_name(args.buf)
      local marker = vim.fn.findfile("pyproject.toml", vim.fn.fnamemodify(file, ":p:h") .. ";")
      client_id = vim.lsp.start_client({
        name = "creatorpack",
        cmd = cmd,
        root_dir = marker ~= "" and vim.fn.fnamemodify(marker, ":p:h") or vim.fn.getcwd(),
      })
    end
    vim.lsp.buf_attach_client(args.buf, client_id)
  end,
})

-- The usual keys: K hover, gd definition, gr references, <space>rn rename, <space>ca code action.
vim.keymap.set("n", "K", vim.lsp.buf.hover)
vim.keymap.set("n", "gd", vim.lsp.buf.definition)
vim.keymap.set("n", "gr", vim.lsp.buf.references)
vim.keymap.set("n", "<space>rn", vim.lsp.buf.rename)
vim.keymap.set("n", "<space>ca", vim.lsp.buf.code_action)
