#!/usr/bin/env python3
"""`entlc lsp` on thousands of declarations written on one line, side by side with the same
declarations one per line (stdlib only).

The same declarations (a product, a feature, an entitlement granting it, and a feature nothing
grants, which is a warning; repeated) are written in two shapes: all on one line, and one per
line. For each shape a fresh server opens the file and the script measures, in milliseconds from
writing the message to having read the whole answer through the pipes:

- open: `didOpen` → its `publishDiagnostics`;
- edits: a `didChange` that makes a reference unknown in the middle of the document (one error;
  the lints wait for it to be fixed), then one that fixes it (the warnings again) → each one's
  `publishDiagnostics` (this includes the server's debounce of 150 ms, the quiet time it waits
  before checking an edited rule set);
- the requests an editor sends while one types (semantic tokens, document symbols, hover,
  completion, references, a code action at the cursor, formatting), each right after an edit;
- code actions over the whole file once its 5,000 warnings are published (one `entl-allow`
  action each).

Each shape is measured RUNS times (alternating shapes): the median and maximum wall time, and
the median processor time the server used meanwhile (from /proc, in steps of 10 ms; on a busy
machine it says what the wall time would be on an idle one, the debounce apart).
The cost of every step must be linear in the document: on one line it must stay close to the
same declarations one per line.

The one-per-line shape is the anchor of the one-line shape. With FIGURES=FILE, the medians also go
to FILE as JSON.

    swift build -c release --product entlc --static-swift-stdlib && python3 Benchmarks/lsp_long_line.py [RUNS] [DECLARATIONS]
"""
import json
import os
import statistics
import sys
import tempfile

from lsp_client import Server
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
DECLARATIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000


def declarations():
    out, i = [], 0
    while len(out) < DECLARATIONS:
        out += [f"product plan_{i}: non_consumable", f"feature feat_{i}: boolean",
                f"entitlement ent_{i} = plan_{i} {{ grants feat_{i} }}", f"feature spare_{i}: boolean"]
        i += 1
    return out


def shapes():
    """The text in each shape, with the position of `feat_K` in the middle entitlement."""
    decls = declarations()
    middle = len(decls) // 2
    middle -= (middle - 2) % 4  # an entitlement
    target = decls[middle].split("grants ")[1].split(" ")[0]
    one_line = 'app "com.example.long" ' + " ".join(decls) + "\n"
    many = 'app "com.example.long"\n' + "\n".join(decls) + "\n"
    within = decls[middle].index("grants ") + len("grants ")
    col = len('app "com.example.long" ' + " ".join(decls[:middle])) + 1 + within
    return {
        "one line": (one_line, (0, col), target),
        "one per line": (many, (1 + middle, within), target),
    }


def session(text, position, target):
    """One server: the milliseconds of each step."""
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "long.entl")
    with open(path, "w") as f:
        f.write(text)
    uri = "file://" + path
    doc = {"textDocument": {"uri": uri}}
    s = Server()
    s.request("initialize", {"processId": None, "rootUri": "file://" + directory, "capabilities": {}})
    s.notify("initialized", {})
    times, cpu = {}, {}

    def diagnostics():
        return s.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")

    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "entl", "version": 1, "text": text}})
    times["open → diagnostics"], m = diagnostics()
    cpu["open → diagnostics"] = s.used
    warnings = len(m["params"]["diagnostics"])
    assert warnings == len(declarations()) // 4, m["params"]["diagnostics"][:3]
    line, character = position
    version = [1]

    def edit():
        # Appends `x` to the granted feature (an unknown name), or takes it away again.
        version[0] += 1
        at = {"line": line, "character": character + len(target)}
        if version[0] % 2 == 0:
            change = {"range": {"start": at, "end": at}, "text": "x"}
        else:
            change = {"range": {"start": at, "end": {"line": line, "character": at["character"] + 1}}, "text": ""}
        s.notify("textDocument/didChange",
                 {"textDocument": {"uri": uri, "version": version[0]}, "contentChanges": [change]})
        return version[0] % 2 == 0

    # With an error the lints wait: one diagnostic; fixed, the warnings are back.
    broken = edit()
    assert broken
    times["edit making an error → diagnostics"], m = diagnostics()
    cpu["edit making an error → diagnostics"] = s.used
    assert len(m["params"]["diagnostics"]) == 1, m["params"]["diagnostics"][:3]
    edit()
    times["edit fixing it → diagnostics"], m = diagnostics()
    cpu["edit fixing it → diagnostics"] = s.used
    assert len(m["params"]["diagnostics"]) == warnings, m["params"]["diagnostics"][:3]
    here = {**doc, "position": {"line": line, "character": character + 1}}
    requests = [
        ("semantic tokens", "textDocument/semanticTokens/full", doc),
        ("document symbols", "textDocument/documentSymbol", doc),
        ("hover", "textDocument/hover", here),
        ("completion", "textDocument/completion", here),
        ("references", "textDocument/references", {**here, "context": {"includeDeclaration": True}}),
        ("code action", "textDocument/codeAction",
         {**doc, "range": {"start": here["position"], "end": here["position"]}, "context": {"diagnostics": []}}),
        ("formatting", "textDocument/formatting", {**doc, "options": {"tabSize": 2, "insertSpaces": True}}),
    ]
    for name, method, params in requests:
        edit()
        _, times[f"{name} after an edit"] = s.request(method, params)
        cpu[f"{name} after an edit"] = s.used
        diagnostics()
    # Once the warnings are published (the text as opened), each has an `entl-allow` action.
    if version[0] % 2 == 0:
        edit()
        diagnostics()
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": line + 10**6, "character": 0}}
    _, times["code actions, whole file, idle"] = s.request(
        "textDocument/codeAction", {**doc, "range": whole, "context": {"diagnostics": []}})
    cpu["code actions, whole file, idle"] = s.used
    s.close()
    return {k: (v * 1000, cpu[k] * 1000) for k, v in times.items()}


def main():
    texts = shapes()
    print(f"{len(declarations()):,} declarations, {len(texts['one line'][0].encode()):,} bytes; {RUNS} runs each "
          f"(shapes alternating); milliseconds, median (max)\n")
    results = {name: [] for name in texts}
    for _ in range(RUNS):
        for name, (text, position, target) in texts.items():
            results[name].append(session(text, position, target))
    steps = list(results["one line"][0])
    print("| step | " + " | ".join(f"{name}: wall | {name}: server cpu" for name in texts) + " |")
    print("| --- | " + " | ".join("--- | ---" for _ in texts) + " |")
    figures = {}
    for step in steps:
        cells = []
        for name in texts:
            wall = [r[step][0] for r in results[name]]
            cpu = [r[step][1] for r in results[name]]
            cells += [f"{statistics.median(wall):.0f} ({max(wall):.0f})", f"{statistics.median(cpu):.0f}"]
            figures[f"{name}: {step}"] = statistics.median(wall)
        print(f"| {step} | " + " | ".join(cells) + " |")
    if os.environ.get("FIGURES"):
        with open(os.environ["FIGURES"], "w") as f:
            json.dump(figures, f, indent=2, sort_keys=True, ensure_ascii=False)


if __name__ == "__main__":
    main()
