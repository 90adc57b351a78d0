#!/usr/bin/env bash
# A real editor: headless Neovim (Debian's `neovim`, built-in LSP client) with the config users
# copy from editors/neovim/entl.lua opens a rule file with an error; the diagnostics, a hover and
# a definition it received must be exactly these. Usage: Tests/LSP/neovim.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
command -v nvim >/dev/null || { echo "neovim is not installed (apt-get install neovim)" >&2; exit 2; }
(cd "$root" && swift build --product entlc >/dev/null)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The shared fixture with a typo: `pro_anual` for `pro_annual`.
sed 's/or pro_annual {/or pro_anual {/' "$here/photos.entl" > "$work/photos.entl"
ENTLC="$root/.build/debug/entlc" ENTL_NVIM_CONFIG="$root/editors/neovim/entl.lua" ENTL_FILE="$work/photos.entl" \
  ENTL_OUT="$work/out.txt" HOME="$work" timeout 60 nvim --headless -n -i NONE -u "$here/neovim_session.lua"
expected='diagnostic 10:33-10:42 ERROR E201 unknown product `pro_anual`
hover ```entl\nentitlement pro = pro_monthly or pro_anual\n```\n\n(entitlement)\n\nEverything in Pro.\n\n- grants `export`\n- grants `api_calls 100 per month`
definition photos.entl 16:8-16:14'
if [[ "$(cat "$work/out.txt")" != "$expected" ]]; then
  echo "Neovim received:" >&2; cat "$work/out.txt" >&2
  echo "expected:" >&2; echo "$expected" >&2
  exit 1
fi
echo "neovim: diagnostics, hover and definition as expected"
