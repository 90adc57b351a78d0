#!/usr/bin/env python3
"""The Cedar side of the comparison (Benchmarks/run.sh runs it in a local virtualenv).

Reads the same rule set (as Cedar policies generated from the same structure) and the same JSONL
customer states as `entlc eval --states`, decides the same entitlement for every state with
cedarpy's batch API, end to end from the file, and compares the decisions with entlc's.

Cedar has no notion of purchases, statuses or expiries, so this script does what a team using
Cedar would have to write: the glue that turns each purchase-tracker state into a Cedar entity
(the products owned now, per docs/state.md's rules, and the units of each consumable held). The glue
is timed as part of the Cedar pipeline, like entlc's own state decoding.

Usage: compare.py POLICIES.cedar STATES.jsonl ENTITLEMENT ENTLC_DECISIONS.jsonl RUNS
Prints one JSON object: timings (median of RUNS) and agreement.
"""
import json
import statistics
import sys
import time
from datetime import datetime

import cedarpy


def instant(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() if text else None


def owned_products(state, now, store_ids, consumables):
    """docs/state.md ownership: the products owned at `now`, and consumable units held."""
    owned, quantity = set(), {}
    for p in state.get("purchases", []):
        name = p["product"]
        if "store" in p and p["store"] is not None:
            name = store_ids.get((p["store"], name))
            if name is None:
                continue
        status = p.get("status", "active")
        if status in ("revoked", "expired", "billing_retry", "unknown"):
            continue
        bought = instant(p.get("purchased_at"))
        if bought is not None and bought > now:
            continue
        if name in consumables:
            q = p.get("quantity", 1)
            if q >= 1:
                quantity[name] = quantity.get(name, 0) + q
                owned.add(name)
            continue
        expires = instant(p.get("expires_at"))
        if status == "past_due":
            grace = instant(p.get("grace_until"))
            if grace is None or now < grace:
                owned.add(name)
        elif status in ("active", "trialing"):
            if expires is None or now < expires:
                owned.add(name)
        elif status == "canceled":
            if expires is not None and now < expires:
                owned.add(name)
    return owned, quantity


def run_cedar(policies, states_path, entitlement, store_ids, consumables):
    with open(states_path) as f:
        lines = f.read().splitlines()
    entities, requests = [], []
    for i, line in enumerate(lines):
        state = json.loads(line)
        now = instant(state["now"])
        owned, quantity = owned_products(state, now, store_ids, consumables)
        uid = f"c{i}"
        entities.append({"uid": {"__entity": {"type": "Customer", "id": uid}},
                         "attrs": {"owned": sorted(owned), "quantity": quantity}, "parents": []})
        requests.append({"principal": f'Customer::"{uid}"', "action": 'Action::"check"',
                         "resource": f'Entitlement::"{entitlement}"', "context": {}})
    results = cedarpy.is_authorized_batch(requests, policies, entities)
    return [r.decision == cedarpy.Decision.Allow for r in results]


def main():
    policies_path, states_path, entitlement, entlc_path, runs = sys.argv[1:6]
    policies = open(policies_path).read()
    # Store ids and consumables, read from the generated .entl next to the policies.
    store_ids, consumables = {}, set()
    current = None
    for line in open(policies_path[: -len(".cedar")] + ".entl"):
        line = line.strip()
        if line.startswith("product "):
            current = line.split()[1].rstrip(":")
            if line.split()[2].startswith("consumable"):
                consumables.add(current)
        elif line.startswith("id ") and current:
            _, store, pid = line.split(maxsplit=2)
            store_ids[(store, pid.strip('"'))] = current
    timings, decisions = [], None
    for _ in range(int(runs)):
        start = time.perf_counter()
        decisions = run_cedar(policies, states_path, entitlement, store_ids, consumables)
        timings.append(time.perf_counter() - start)
    entlc = []
    for line in open(entlc_path):
        result = json.loads(line)["results"][0]
        entlc.append(result["allowed"])
    agree = sum(1 for a, b in zip(decisions, entlc) if a == b)
    print(json.dumps({"states": len(decisions), "median_seconds": statistics.median(timings),
                      "agree": agree, "disagree": len(decisions) - agree,
                      "allowed": sum(decisions), "cedarpy": getattr(cedarpy, "__version__", "4.x")}))


if __name__ == "__main__":
    main()
