#!/usr/bin/env sh
# Makes docs/images/editor-neovim.png: Neovim (Debian's, 0.7+) in an xterm under Xvfb, editing a
# pack with a misspelt key, showing the creatorpack diagnostics as virtual text and the code action
# menu with the quick fix. Needs (as root on Debian): apt-get install -y neovim xvfb xterm imagemagick
# Not part of the tests. Usage: editors/screenshot.sh [OUTPUT.png]
set -eu
cd "$(dirname "$0")/.."
out="${1:-docs/images/editor-neovim.png}"
for tool in nvim Xvfb xterm import; do
    command -v "$tool" >/dev/null 2>&1 || { echo "screenshot.sh: $tool is missing (apt-get install -y neovim xvfb xterm imagemagick)" >&2; exit 2; }
done
work="$(mktemp -d)"
display=":$((90 + $$ % 9))"
cleanup() {
    [ -n "${term_pid:-}" ] && kill "$term_pid" 2>/dev/null || true
    [ -n "${x_pid:-}" ] && kill "$x_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The pack: the minimal example with two mistakes a creator makes (a misspelt root key, a key that
# the manifest does not have).
sed -e 's/"instructions": "Narrate[^"]*"/"instruction": "Narrate a short evening at the Saltmere lighthouse."/' \
    -e 's/"title": "Supper at the Lighthouse",/"title": "Supper at the Lighthouse",\n    "tagline": "Supper, lamp, and a choice",/' \
    examples/0.5/minimal.json > "$work/pack.json"

# Neovim: the snippet of editors/neovim, then, once the diagnostics have come, the cursor on the
# misspelt key and the code action menu open (it waits for a choice while the screenshot is taken).
cat > "$work/init.lua" <<LUA
vim.opt.termguicolors = false
vim.opt.number = true
vim.opt.wrap = false
vim.opt.shortmess:append("I")
vim.cmd("syntax on")
dofile("$(pwd)/editors/neovim/creatorpack.lua")
local shown = false
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  callback = function()
    if shown or #vim.diagnostic.get(0) < 2 then return end
    shown = true
    vim.defer_fn(function()
      vim.fn.search('"instruction"')
      vim.lsp.buf.code_action()
    end, 300)
  end,
})
LUA

Xvfb "$display" -screen 0 1000x880x24 -nolisten tcp >/dev/null 2>&1 &
x_pid=$!
sleep 1
CREATORPACK="${CREATORPACK:-$(pwd)/.venv/bin/creatorpack}" DISPLAY="$display" \
    xterm -geometry 140x51+0+0 -fa "DejaVu Sans Mono" -fs 10 -bg "#1e1e1e" -fg "#d4d4d4" \
    -e nvim -u "$work/init.lua" "$work/pack.json" &
term_pid=$!
sleep "${SCREENSHOT_WAIT:-6}"
mkdir -p "$(dirname "$out")"
DISPLAY="$display" import -window root "$out"
echo "screenshot.sh: wrote $out"
