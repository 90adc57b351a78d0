"""The JSON Schema of the state and entlc's decoder agree, as far as a schema can see.

For every state: when `entlc state check` reads it without an error and without a warning, the
schema must accept it; when entlc refuses it, the schema must refuse it too. (A state entlc reads
with a warning, an unknown key, is refused by the schema and allowed either way.) The states:
the examples, the documentation's `json state` blocks, the importer's expected outputs, and
generated variants of a few valid states, each changing one value to a valid or an invalid one.
"""

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile

import jsonschema


class Raw:
    """A JSON value written as given (numbers in every notation)."""

    def __init__(self, text):
        self.text = text


def dump(value):
    """JSON text, with `Raw` values verbatim."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dump(v) for v in value) + "]"
    return json.dumps(value)


INSTANTS = ["2026-11-22T12:00:00Z", "2026-11-22T12:00:00.250Z", "2026-11-22T13:00:00+01:00", "2024-02-29T00:00:00Z",
            "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22", "2026-11-22T12:00:00",
            "2026-11-22T24:00:00Z", "2026-11-22T12:60:00Z", "2026-11-22 12:00:00Z", "2026-11-22t12:00:00z",
            "2026-11-22T12:00:00.1234567891Z", "", None, 5, True]
NUMBERS = [Raw(t) for t in ["0", "1", "7", "1.0", "1e2", "1E2", "0.5e1", "50E-1", "1.5", "25e-1", "-1", "-0", "-0.0",
                             "1000000000000000", "1e15", "1000000000000001", "1e16", "1e-5", "null", '"3"', "true",
                             "[]", "{}"]]
STRINGS = ["x", "", "é", None, 5, False, [], {}]
BOOLS = [True, False, None, "true", 1]


def base_states():
    purchase = {"product": "pro", "store": "app_store", "status": "active", "purchased_at": "2026-10-05T09:00:00Z",
                "period_start": "2026-11-05T09:00:00Z", "expires_at": "2026-12-05T09:00:00Z", "grace_until": None,
                "will_renew": True, "ownership": "purchased", "quantity": 1, "environment": "live"}
    return [
        {},
        {"customer": "c", "customer_since": "2026-01-01T00:00:00Z", "now": "2026-11-22T12:00:00Z", "environment": "test",
         "purchases": [purchase], "usage": [{"feature": "calls", "amount": 3, "at": "2026-11-20T00:00:00Z", "id": "r1"},
                                            {"event": "call", "amount": 1},
                                            {"feature": "seats", "level": 2}],
         "overrides": {"pro": "purchased"},
         "grants": [{"entitlement": "plan", "from": "2026-11-01T00:00:00Z", "until": "2026-12-01T00:00:00Z", "id": "promo",
                     "reason": "Black Friday"},
                    {"feature": "calls", "amount": 100, "per": "month", "carry": True, "carry_up_to": 50, "overage": True,
                     "overage_up_to": 20, "priority": 1, "from": "2026-11-01T00:00:00Z"}]},
    ]


def variants(rng, count):
    """States that differ from a valid one in one place."""
    full = base_states()[1]
    out = []

    def change(path, value):
        state = json.loads(json.dumps(full))
        node = state
        for key in path[:-1]:
            node = node[key]
        if value is KeyError:
            node.pop(path[-1], None)
        else:
            node[path[-1]] = value
        out.append(state)

    for key in ["customer_since", "now"]:
        for v in INSTANTS:
            change([key], v)
    for v in STRINGS:
        change(["customer"], v)
        change(["environment"], v)
        change(["$schema"], v)
    for v in ["live", "test", "prod", None]:
        change(["environment"], v)
    for v in [[], None, {}, "x", [None], [5]]:
        change(["purchases"], v)
        change(["usage"], v)
    for v in [{}, None, [], {"pro": "not_purchased"}, {"pro": "unknown"}, {"pro": None}, {"pro": "owned"}, {"pro": 1}]:
        change(["overrides"], v)
    for key in ["purchased_at", "period_start", "expires_at", "grace_until"]:
        for v in INSTANTS:
            change(["purchases", 0, key], v)
    for v in ["active", "trialing", "past_due", "billing_retry", "canceled", "expired", "revoked", "unknown", "actve",
              "Active", None, 3]:
        change(["purchases", 0, "status"], v)
    for v in ["purchased", "family_shared", "shared", None, 1]:
        change(["purchases", 0, "ownership"], v)
    for v in BOOLS:
        change(["purchases", 0, "will_renew"], v)
    for v in NUMBERS:
        change(["purchases", 0, "quantity"], v)
        change(["usage", 0, "amount"], v)
        change(["usage", 2, "level"], v)
    for v in STRINGS:
        change(["purchases", 0, "product"], v)
        change(["purchases", 0, "store"], v)
        change(["usage", 0, "feature"], v)
        change(["usage", 1, "event"], v)
        change(["usage", 0, "id"], v)
    for v in INSTANTS:
        change(["usage", 0, "at"], v)
        change(["grants", 0, "from"], v)
        change(["grants", 1, "until"], v)
    for v in [[], None, {}, [None], [{}]]:
        change(["grants"], v)
    for v in STRINGS:
        change(["grants", 0, "entitlement"], v)
        change(["grants", 1, "feature"], v)
        change(["grants", 0, "id"], v)
        change(["grants", 1, "reason"], v)
    for v in NUMBERS:
        change(["grants", 1, "amount"], v)
        change(["grants", 1, "carry_up_to"], v)
        change(["grants", 1, "overage_up_to"], v)
        change(["grants", 1, "priority"], v)
        change(["grants", 0, "amount"], v)
    for v in BOOLS:
        change(["grants", 1, "carry"], v)
        change(["grants", 1, "overage"], v)
        change(["grants", 1, "unlimited"], v)
        change(["grants", 0, "overage"], v)
    for v in ["minute", "month", "half_year", "fortnight", None, 3]:
        change(["grants", 1, "per"], v)
        change(["grants", 0, "per"], v)
    change(["grants", 0, "feature"], "calls")
    change(["grants", 1, "entitlement"], "plan")
    change(["grants", 0, "entitlement"], KeyError)
    change(["grants", 1, "from"], KeyError)
    change(["grants", 1, "per"], KeyError)
    change(["grants", 1, "carry"], KeyError)
    change(["grants", 1, "overage"], KeyError)
    change(["grants", 0, "until"], "2026-10-01T00:00:00Z")
    change(["grants", 0, "until"], "2026-11-01T00:00:00Z")
    change(["grants", 1, "kind"], "promo")
    change(["purchases", 0, "product"], KeyError)
    change(["usage", 0, "amount"], KeyError)
    change(["usage", 0, "feature"], KeyError)
    # Both shapes, or both names, in one record; an unknown key at each level.
    change(["usage", 0, "level"], 2)
    change(["usage", 0, "event"], "call")
    change(["usage", 0, "level"], None)
    change(["usage", 0, "event"], None)
    change(["usage", 2, "amount"], Raw("null"))
    change(["purchases", 0, "state"], "expired")
    change(["usage", 0, "amt"], 1)
    change(["Now"], "2026-11-22T12:00:00Z")
    # Random combinations of two changes.
    singles = list(out)
    for _ in range(count):
        a, b = rng.sample(singles, 2)
        out.append(merge(a, b, full))
    return out


def merge(a, b, base):
    """`a` with `b`'s top-level differences from `base` applied too."""
    state = deep_copy(a)
    for key, value in b.items():
        if key not in base or value != base.get(key):
            state[key] = value
    for key in set(base) - set(b):
        state.pop(key, None)
    return state


def deep_copy(value):
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy(v) for v in value]
    return value


def corpus():
    """The repository's own states: examples, docs, the importer's expected outputs."""
    texts = {}
    for path in sorted(glob.glob("examples/*.json") + glob.glob("Tests/Fixtures/import/expected/*/*.json")):
        with open(path) as f:
            texts[path] = f.read()
    for path in sorted(glob.glob("docs/*.md")) + ["README.md"]:
        block = None
        for number, line in enumerate(open(path).read().split("\n"), 1):
            if block is None and line.startswith("```json state"):
                block, start = [], number
            elif block is not None and line.startswith("```"):
                texts[f"{path}:{start}"] = "\n".join(block)
                block = None
            elif block is not None:
                block.append(line)
    return texts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", type=int, default=150)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with open("schema/state.schema.json") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    texts = corpus()
    for i, state in enumerate(base_states() + variants(rng, args.variants)):
        texts[f"variant {i}"] = dump(state)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, text in enumerate(texts.values()):
            path = os.path.join(tmp, f"{i}.json")
            with open(path, "w") as f:
                f.write(text)
            paths.append(path)
        run = subprocess.run([os.environ["ENTLC"], "state", "check", "--format", "json", *paths],
                             capture_output=True, text=True)
        if run.returncode not in (0, 1):
            sys.exit(f"entlc state check failed ({run.returncode}): {run.stderr}")
        reports = json.loads(run.stdout)
    failures, accepted, refused, warned = [], 0, 0, 0
    for (name, text), report in zip(texts.items(), reports):
        try:
            errors = sorted(validator.iter_errors(json.loads(text)), key=str)
        except ValueError as e:
            errors = [e]
        schema_valid = not errors
        if report["error"] is not None:
            refused += 1
            if schema_valid:
                failures.append(f"{name}: entlc refuses it ({report['error']}) but the schema accepts it:\n  {text}")
        elif report["warnings"]:
            warned += 1
        else:
            accepted += 1
            if not schema_valid:
                failures.append(f"{name}: entlc reads it without a warning but the schema refuses it "
                                f"({errors[0].message if hasattr(errors[0], 'message') else errors[0]}):\n  {text}")
    print(f"schema agreement: {len(texts)} states ({accepted} read cleanly, {refused} refused, {warned} with warnings), "
          f"{len(failures)} disagreements")
    for f in failures[:20]:
        print(f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
