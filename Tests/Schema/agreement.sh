#!/usr/bin/env bash
# The shipped JSON Schema (schema/state.schema.json) and entlc's state decoder agree, as far as a
# schema can see: every state entlc reads without a warning is valid under the schema, and every
# state entlc refuses is invalid under it. Checked on the examples, the documentation's states,
# the importer's outputs and hundreds of generated valid and invalid variants, with PyPI's
# `jsonschema` (installed into Tests/Schema/.venv, git-ignored). Fails on any disagreement.
# Usage: Tests/Schema/agreement.sh [--seed S] [--variants N]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if ! "$here/.venv/bin/python" -c 'import jsonschema, rfc3339_validator' 2>/dev/null; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
(cd "$root" && swift build --product entlc >/dev/null)
export ENTLC="${ENTLC:-$root/.build/debug/entlc}"
cd "$root"
exec "$here/.venv/bin/python" "$here/agreement.py" "$@"
