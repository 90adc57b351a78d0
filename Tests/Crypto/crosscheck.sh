#!/usr/bin/env bash
# Cross-checks entlc's own Ed25519 against an independent implementation: PyPI `cryptography`
# (OpenSSL underneath), installed into Tests/Crypto/.venv (git-ignored) on first use. Signatures
# must agree byte for byte and each side must verify the other's; keys written by either side (and
# by openssl, where installed) must load in the other. Fails loudly on any mismatch.
# Usage: Tests/Crypto/crosscheck.sh [--cases N] [--seed S]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if ! "$here/.venv/bin/python" -c 'import cryptography' 2>/dev/null; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
(cd "$root" && swift build --build-tests >/dev/null)
export ENTLC="${ENTLC:-$root/.build/debug/entlc}"
cd "$root"
exec "$here/.venv/bin/python" "$here/crosscheck.py" "$@"
