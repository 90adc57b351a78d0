#!/usr/bin/env python3
"""Latency of every `entlc lsp` request on a generated 10,000-line rule file (stdlib only).

Starts the release build of `entlc lsp`, opens the file, waits for its diagnostics, then times
each request N times in two situations: idle (the rule set already checked) and right after an
edit (the request must check the changed rule set first). Prints the median and the maximum in
milliseconds, from writing the request to having read the whole response through the pipes
(the client's JSON parsing excluded). The anchor, in the same run: `entlc check` of the same file
as a process of its own (start, read, check with the lints, exit), median of N. With FIGURES=FILE,
the figures also go to FILE as JSON.

    swift build -c release --product entlc --static-swift-stdlib && python3 Benchmarks/lsp_latency.py [N]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from lsp_client import ENTLC, Server

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def generate():
    lines, i = ['app "com.example.big"', ""], 0
    while len(lines) < 10_000:
        lines += [f"/// Plan {i}.", f"product plan_{i}: subscription {{", "  period month", f'  id app_store "plan.{i}"', "}", "",
                  f"feature feat_{i}: metered {{", '  unit "call" / "calls"', "}", "",
                  f"entitlement ent_{i} = plan_{i} or plan_{max(i - 1, 0)} {{", f"  grants feat_{i} 100 per month carry", "}", ""]
        i += 1
    return "\n".join(lines) + "\n", i


def main():
    text, plans = generate()
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "big.entl")
    with open(path, "w") as f:
        f.write(text)
    uri = "file://" + path
    s = Server()
    s.request("initialize", {"processId": None, "rootUri": "file://" + directory, "capabilities": {}})
    s.notify("initialized", {})
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "entl", "version": 1, "text": text}})
    while s.receive().get("method") != "textDocument/publishDiagnostics":
        pass
    doc = {"textDocument": {"uri": uri}}
    last = 2 + 14 * (plans - 1) + 10  # the line of the last entitlement
    def at(line, character):
        return {**doc, "position": {"line": line, "character": character}}
    requests = [
        ("hover", "textDocument/hover", at(last, 14)),
        ("definition", "textDocument/definition", at(last + 1, 12)),
        ("references", "textDocument/references", {**at(last + 1, 12), "context": {"includeDeclaration": True}}),
        ("completion", "textDocument/completion", at(last + 1, 9)),
        ("rename", "textDocument/rename", {**at(last + 1, 12), "newName": "renamed"}),
        ("documentSymbol", "textDocument/documentSymbol", doc),
        ("workspace/symbol", "workspace/symbol", {"query": "ent_7"}),
        ("formatting", "textDocument/formatting", {**doc, "options": {"tabSize": 2, "insertSpaces": True}}),
        ("codeAction", "textDocument/codeAction", {**doc, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "context": {"diagnostics": []}}),
        ("semanticTokens", "textDocument/semanticTokens/full", doc),
    ]
    version = [1]
    def edit():
        # Type a space at the end of line 0 (then remove it next time): the rule set is stale.
        version[0] += 1
        line0 = len('app "com.example.big"')
        change = ({"range": {"start": {"line": 0, "character": line0}, "end": {"line": 0, "character": line0}}, "text": " "}
                  if version[0] % 2 == 0 else
                  {"range": {"start": {"line": 0, "character": line0}, "end": {"line": 0, "character": line0 + 1}}, "text": ""})
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version[0]}, "contentChanges": [change]})

    print(f"{len(text.splitlines()):,} lines, {len(text.encode()):,} bytes; {N} runs each; milliseconds\n")
    print("| request | idle median | idle max | after an edit median | after an edit max |")
    print("| --- | --- | --- | --- | --- |")
    figures = {"slowest_median_ms": 0.0, "largest_max_ms": 0.0}
    for name, method, params in requests:
        results = {}
        for mode in ("idle", "edited"):
            times = []
            for _ in range(N):
                if mode == "edited":
                    edit()
                _, seconds = s.request(method, params)
                times.append(seconds * 1000)
            results[mode] = times
        print(f"| {name} | {statistics.median(results['idle']):.1f} | {max(results['idle']):.1f} | "
              f"{statistics.median(results['edited']):.1f} | {max(results['edited']):.1f} |")
        for mode in ("idle", "edited"):
            if statistics.median(results[mode]) > figures["slowest_median_ms"]:
                figures.update(slowest_median_ms=statistics.median(results[mode]),
                               slowest=name + (" after an edit" if mode == "edited" else ", idle"))
            figures["largest_max_ms"] = max(figures["largest_max_ms"], max(results[mode]))
    s.request("shutdown", None)
    s.notify("exit", None)
    s.p.wait()
    checks = []
    for _ in range(N):
        start = time.perf_counter()
        subprocess.run([ENTLC, "check", path], stdout=subprocess.DEVNULL, check=False)
        checks.append((time.perf_counter() - start) * 1000)
    figures["anchor_check_ms"] = statistics.median(checks)
    print(f"\nAnchor: `entlc check` of the same file as a process, median of {N}: "
          f"{figures['anchor_check_ms']:.1f} ms.")
    if os.environ.get("FIGURES"):
        with open(os.environ["FIGURES"], "w") as f:
            json.dump(figures, f, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
