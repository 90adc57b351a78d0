#!/usr/bin/env bash
# End-to-end tests of `entlc lsp` with an independent client: pytest-lsp (PyPI) drives the built
# binary through a realistic editing session. Installs pytest-lsp into Tests/LSP/.venv (git-ignored)
# on first use, builds entlc, runs the suite. Usage: Tests/LSP/run.sh [pytest arguments]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ ! -x "$here/.venv/bin/pytest" ]]; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
(cd "$root" && swift build --product entlc >/dev/null)
export ENTLC="${ENTLC:-$root/.build/debug/entlc}"
cd "$here"
exec "$here/.venv/bin/pytest" -q -p no:cacheprovider "$@"
