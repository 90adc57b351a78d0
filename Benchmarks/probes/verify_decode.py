"""The digest decode.swift prints, computed from Python's json: checks every decoded value.

Usage: python3 verify_decode.py FILE.jsonl...
"""
import calendar
import json
import sys

STATUSES = ["active", "trialing", "past_due", "billing_retry", "canceled", "expired", "revoked", "unknown"]

for path in sys.argv[1:]:
    names = {}

    def name(n):
        return names.setdefault(n, len(names))

    def t(s):
        return 0 if s is None else calendar.timegm(tuple(int(x) for x in
                                                          (s[0:4], s[5:7], s[8:10], s[11:13], s[14:16], s[17:19])))

    digest = 0
    for line in open(path, "rb"):
        if not line.strip():
            continue
        state = json.loads(line)
        # ids in the order the decoder meets the names: key order within each line
        digest += t(state.get("now")) + len(state.get("customer", "").encode())
        for p in state.get("purchases", []):
            ids = {k: name(v) for k, v in p.items() if k in ("product", "store")}
            digest += ids["product"] * 7 + ids.get("store", -1) * 13 + STATUSES.index(p.get("status", "active")) * 17
            digest += p.get("quantity", 1) + t(p.get("purchased_at")) + t(p.get("expires_at")) * 3
            digest += t(p.get("grace_until")) * 5
        for u in state.get("usage", []):
            digest += name(u["feature"]) * 19 + u.get("amount", u.get("level", 0)) + (23 if "level" in u else 0)
            digest += t(u.get("at")) * 11
    print(f"  {path.rsplit('/', 1)[-1]}: digest {digest % 2**64 if digest >= 0 else digest}")
