"""Writes N customer states for examples/api.entl as JSONL (deterministic) into two files,
DIR/part-0.jsonl and DIR/part-1.jsonl (half each): a mix of Pro subscribers, pack and credit
buyers and free customers with API usage; one line in 997 is invalid (an error record, not a
failure), one in 1,009 is blank, one in 1,013 has a carriage return inside its JSON (whitespace:
the line is one customer), one in 1,019 holds a byte that is not UTF-8 (an error record) and one
in 1,021 is a lone carriage return ended by `\r\n` (an error record).
Usage: generate.py N DIR"""
import json
import os
import sys

n, directory = int(sys.argv[1]), sys.argv[2]
files = [open(os.path.join(directory, f"part-{k}.jsonl"), "wb") for k in (0, 1)]
for i in range(n):
    out = files[0] if i < n // 2 else files[1]
    if i % 1009 == 1008:
        out.write(b"\n")
        continue
    if i % 1021 == 1020:
        out.write(b"\r\r\n")  # the line `\r`: not blank (an error record), its `\r\n` end aside
        continue
    purchases = []
    if i % 3 != 0:
        purchases.append({"product": "price_forecast_pro_monthly" if i % 5 else "price_forecast_pro_annual",
                          "store": "stripe", "status": "active" if i % 997 != 996 else "actve",
                          "purchased_at": "2026-09-03T10:00:00Z", "period_start": "2026-11-03T10:00:00Z",
                          "expires_at": "2026-12-03T10:00:00Z" if i % 7 else "2026-11-10T10:00:00Z"})
    if i % 4 == 1:
        purchases.append({"product": "price_forecast_pack_5k", "store": "stripe", "quantity": 1 + i % 3,
                          "purchased_at": "2026-11-15T09:00:00Z"})
    if i % 6 == 2:
        purchases.append({"product": "price_forecast_credits_1k", "store": "stripe", "quantity": 1,
                          "purchased_at": "2026-10-20T09:00:00Z"})
    usage = [{"feature": "api_calls", "amount": (i * 37) % 12_000, "at": "2026-11-1%dT12:00:00Z" % (i % 10)},
             {"feature": "storage_gb", "level": i % 80, "at": "2026-11-21T00:00:00Z"}]
    line = json.dumps({"customer": "customer_%07d" % i, "purchases": purchases, "usage": usage},
                      separators=(",", ":")).encode()
    if i % 1013 == 1012:
        line = line.replace(b',"purchases"', b',\r"purchases"')
    if i % 1019 == 1018:
        line = line.replace(b'"customer_', b'"caf\xe9_')
    out.write(line + b"\n")
for f in files:
    f.close()
