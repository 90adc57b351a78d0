#!/usr/bin/env python3
"""The report of one run of Benchmarks/run.sh (stdlib only): the table of current figures, each
beside the anchor measured in the same run and the goal it is held to, then each benchmark's own
tables. Reads what the steps of run.sh left in DIR (`NAME.json` figures, `NAME.md` tables).

    report.py DIR                       prints the report
    report.py DIR --into BENCHMARKS.md  also replaces the part of BENCHMARKS.md between the markers
"""
import json
import os
import sys

BEGIN = "<!-- report: begin -->"
END = "<!-- report: end -->"

# The steps of run.sh, in the order their tables appear under "Details".
DETAILS = [
    ("bench", None),  # entlc-bench run: its tables carry their own headings
    ("cedar", "Batch against Cedar (cedarpy)"),
    ("simdjson", "Batch against parsing alone (pysimdjson), one core"),
    ("matrix", "Every query kind, short and long lines, against parsing alone (pysimdjson), one core"),
    ("consume", "`eval --consume` against `eval` on one state file"),
    ("stream", "Streaming states through a pipe"),
    ("lsp", "`entlc lsp` on a 10,000-line rule file"),
    ("lsp-long", "`entlc lsp` on 20,000 declarations on one line"),
    ("lint", "The lint budgets"),
    ("load", None),
]


def load(directory, name):
    path = os.path.join(directory, name + ".json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def text(directory, name):
    path = os.path.join(directory, name + ".md")
    return open(path).read().strip() if os.path.exists(path) else ""


def time(seconds):
    """A duration in the unit that suits it."""
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.0f} ms" if seconds >= 0.01 else f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def verdict(ok):
    return "met" if ok else "**not met**"


def rows(d):
    """(what, entlc, anchor, ratio, goal, verdict) for every figure the run produced; a quick run's
    inputs are smaller than the goals speak of, so it gets no verdicts."""
    if d["run"].get("quick"):
        return [row[:5] + ("(quick run)" if row[5] else "",) for row in full_rows(d)]
    return full_rows(d)


def full_rows(d):
    b, cedar, simd, stream = d["bench"], d["cedar"], d["simdjson"], d["stream"]
    matrix, consume = d["matrix"], d["consume"]
    lsp, long_line, lint, loading = d["lsp"], d["lsp-long"], d["lint"], d["load"]
    out = []
    if b:
        anchor = f"a `[String: Int]` lookup: {time(b['anchor_lookup_ns'] / 1e9)}"
        for what, key, goal in [
            ("cold metered check (`api_calls`: a fresh `Evaluation`, credit fallback)", "cold_metered_ns", 2000),
            ("cold boolean check (`history_access`)", "cold_boolean_ns", 1000),
            ("repeated metered check (`Evaluator`, cached until `valid_until`)", "cached_metered_ns", 75),
            ("repeated boolean check", "cached_boolean_ns", 75),
            ("repeated metered check by `FeatureID` (`gen swift`'s typed ids)", "typed_metered_ns", 75),
            ("repeated boolean check by `FeatureID`", "typed_boolean_ns", 75),
        ]:
            if key not in b:
                continue
            out.append((what, time(b[key] / 1e9), anchor, f"{b[key] / b['anchor_lookup_ns']:.1f}×",
                        f"≤ {goal // 1000} µs" if goal >= 1000 else f"≤ {goal} ns", verdict(b[key] <= goal)))
        ratio = b["windows_five_years_ns"] / b["windows_yesterday_ns"]
        out.append(("a `per minute` grant bought five years ago (2.6 million windows), cold check",
                    time(b["windows_five_years_ns"] / 1e9),
                    f"bought yesterday: {time(b['windows_yesterday_ns'] / 1e9)}", f"{ratio:.2f}×",
                    "elapsed windows cost nothing", verdict(ratio <= 1.25)))
        out.append(("100,000 usage records over a credit system: evaluate everything, cold",
                    time(b["heavy_all_ms"] / 1e3), f"decoding them: {time(b['heavy_decode_ms'] / 1e3)}",
                    f"{b['heavy_all_ms'] / b['heavy_decode_ms']:.2f}×", "≪ 100 ms",
                    verdict(b["heavy_all_ms"] + b["heavy_decode_ms"] < 100)))
    if b and cedar:
        states = int(b["batch_states"])
        entlc, cedar_ms = b["batch_4_ms"], cedar["median_seconds"] * 1e3
        out.append((f"`eval --states`, {states:,} states, 200 products ({os.cpu_count()} threads, the default)",
                    time(entlc / 1e3), f"cedarpy `is_authorized_batch` + state glue: {time(cedar_ms / 1e3)}",
                    f"{cedar_ms / entlc:.1f}× faster", "≥ 15× faster than cedarpy",
                    verdict(cedar_ms / entlc >= 15 and cedar["disagree"] == 0)))
    if simd:
        ratio = simd["entlc_ms"] / simd["simdjson_ms"]
        out.append((f"`eval --states --jobs 1`, {simd['mb']:.1f} MB of JSONL, output included",
                    f"{time(simd['entlc_ms'] / 1e3)} ({simd['mb'] / simd['entlc_ms'] * 1e3:.0f} MB/s)",
                    f"pysimdjson parsing each line: {time(simd['simdjson_ms'] / 1e3)}"
                    + (f" (read and split in Python too: {time(simd['python_ms'] / 1e3)})"
                       if "python_ms" in simd else ""),
                    f"{ratio:.1f}× (CPU time {simd['entlc_cpu_ms'] / simd['simdjson_cpu_ms']:.1f}×)"
                    + (f"; {simd['entlc_ms'] / simd['python_ms']:.1f}× the context" if "python_ms" in simd else ""),
                    "≤ 3× parsing alone", verdict(ratio <= 3)))
    if matrix:
        for length in ["short", "long"]:
            mb, lines = matrix[f"{length}_mb"], matrix[f"{length}_lines"]
            for kind, query in [("entitlement", "--entitlement e0"), ("requires", "--feature gated"),
                                ("credits", "--feature f1"), ("all", "--all")]:
                ms, ratio = matrix[f"{length}_{kind}_ms"], matrix[f"{length}_{kind}_ratio"]
                out.append((f"`eval --states --jobs 1 {query}`, {length} lines ({mb * 1e6 / lines:.0f} B), "
                            f"{mb:.0f} MB", f"{time(ms / 1e3)} ({mb / ms * 1e3:.0f} MB/s)",
                            f"pysimdjson parsing each line: {time(matrix[f'{length}_simdjson_ms'] / 1e3)}"
                            + (f" (read and split in Python too: {time(matrix[f'{length}_python_ms'] / 1e3)})"
                               if f"{length}_python_ms" in matrix else ""),
                            f"{ratio:.1f}×" + (f"; {ms / matrix[f'{length}_python_ms']:.1f}× the context"
                                              if f"{length}_python_ms" in matrix else ""),
                            "≤ 3× parsing alone", verdict(ratio <= 3)))
            if f"{length}_all_output_ratio" in matrix:
                out.append((f"`eval --states --jobs 1 --all`, {length} lines: against reading its own output "
                            f"({matrix[f'{length}_all_output_mb']:.0f} MB)",
                            time(matrix[f"{length}_all_ms"] / 1e3),
                            f"pysimdjson parsing that output: "
                            f"{time(matrix[f'{length}_all_output_simdjson_ms'] / 1e3)}",
                            f"{matrix[f'{length}_all_output_ratio']:.2f}×", "(context, no goal)", ""))
    if consume:
        sizes = sorted(int(k[len("eval_"):-len("_ms")]) for k in consume if k.startswith("eval_"))
        for n in sizes:
            e, c = consume[f"eval_{n}_ms"], consume[f"consume_{n}_ms"]
            out.append((f"`eval --consume`, a state of {n:,} usage records", time(c / 1e3),
                        f"`eval` of the same file: {time(e / 1e3)}", f"{c / e:.2f}×", "≤ 3× `eval`",
                        verdict(c <= 3 * e)))
        if len(sizes) > 1:
            growth = consume[f"consume_{sizes[-1]}_ms"] / consume[f"consume_{sizes[0]}_ms"]
            out.append((f"`eval --consume`, {sizes[-1]:,} records against {sizes[0]:,}", f"×{growth:.2f}",
                        f"records ×{sizes[-1] / sizes[0]:.0f}", "", "linear",
                        verdict(growth <= 1.1 * sizes[-1] / sizes[0])))
    if stream:
        gb = stream["bytes"] / 1e9
        peak = max(stream["pipe_rss_mb"], stream["long_line_rss_mb"], stream["explain_rss_mb"])
        out.append((f"`eval --states -`, {gb:.1f} GB of states through a pipe",
                    f"{stream['pipe_rss_mb']} MB peak, {stream['pipe_mb_per_s']:.0f} MB/s (with a 16 MiB line: "
                    f"{stream['long_line_rss_mb']} MB; every result explained: {stream['explain_rss_mb']} MB)",
                    f"the same feed into `wc -c`: {stream['anchor_mb_per_s']:.0f} MB/s",
                    f"{stream['pipe_mb_per_s'] / stream['anchor_mb_per_s']:.2f}×", "≤ 64 MB resident (VmHWM)",
                    verdict(peak <= 64)))
    if b:
        # The median of paired ratios (entlc-bench: runs of the two sizes one after the other).
        ratio = b.get("check_doubling", b["check_large_s"] / b["check_small_s"])
        out.append((f"`check`, {int(b['check_large_lines']):,} lines",
                    f"{time(b['check_large_s'])}, {int(b['check_large_mb'])} MB",
                    f"{int(b['check_small_lines']):,} lines: {time(b['check_small_s'])}", f"×{ratio:.2f}",
                    "≤ 1 s and ≤ 300 MB for 100k lines; doubling ≤ ×2.2",
                    verdict(b["check_large_s"] <= 1 and b["check_large_mb"] <= 300 and ratio <= 2.2)))
        out.append((f"`diff`, {int(b['check_large_lines']):,} lines each side ({int(b['diff_findings'])} findings)",
                    f"{time(b['diff_s'])}, {int(b['diff_mb'])} MB", f"`check` of one side: {time(b['check_large_s'])}",
                    f"{b['diff_s'] / b['check_large_s']:.1f}×", "< 2 s", verdict(b["diff_s"] < 2)))
    if lsp:
        out.append(("`lsp`, 10,000 lines: the slowest request, median",
                    f"{lsp['slowest_median_ms']:.0f} ms ({lsp['slowest']}; the largest maximum "
                    f"{lsp['largest_max_ms']:.0f} ms)",
                    f"`entlc check` of the file: {lsp['anchor_check_ms']:.0f} ms",
                    f"{lsp['slowest_median_ms'] / lsp['anchor_check_ms']:.2f}×", "every request < 50 ms",
                    verdict(lsp["slowest_median_ms"] < 50)))
    if long_line:
        for step in ["open → diagnostics", "edit fixing it → diagnostics"]:
            one, many = long_line[f"one line: {step}"], long_line[f"one per line: {step}"]
            out.append((f"`lsp`, 20,000 declarations on one line: {step}", f"{one:.0f} ms",
                        f"one per line: {many:.0f} ms", f"{one / many:.2f}×", "< 0.5 s, as fast as one per line",
                        verdict(one < 500 and one <= many * 1.25)))
    for name, figures in lint.items():
        out.append((f"lint budget: `{name}`", f"{figures['ms']:.0f} ms",
                    f"`check examples`: {figures['anchor_ms']:.0f} ms",
                    f"{figures['ms'] / figures['anchor_ms']:.1f}×", "—", ""))
    for key in [k for k in loading if k.startswith("load_")]:
        name = key[len("load_"):-len("_ms")]
        compile_ms = loading[f"compile_{name}_ms"]
        out.append((f"loading the built `{name.replace('_', '-')}` (`RuleGraphArtifact(bytes:)`)",
                    f"{loading[key]:.2f} ms", f"compiling its source: {compile_ms:.2f} ms",
                    f"{loading[key] / compile_ms:.2f}×", "—", ""))
    return out


def report(directory):
    data = {name: load(directory, name) for name, _ in DETAILS + [("run", None)]}
    run = data["run"]
    lines = ["## Current figures", ""]
    lines.append(
        f"`Benchmarks/run.sh` on {run.get('date', '?')} at commit `{run.get('commit', '?')}`"
        f"{' (QUICK=1: smaller inputs, fewer runs)' if run.get('quick') else ''}: {run.get('machine', '?')}; "
        f"{run.get('swift', '?')}; load average {run.get('load_before', '?')} when it started and "
        f"{run.get('load_after', '?')} when it ended (1, 5 and 15 minutes). Medians of several runs; each "
        "anchor was measured in the same run, so a slow stretch of this shared machine shows in both.")
    lines += ["", "| what | entlc | anchor (same run) | ratio | goal | |", "| --- | --- | --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows(data)]
    lines += ["", "## Details", ""]
    for name, heading in DETAILS:
        body = text(directory, name)
        if not body:
            continue
        if heading:
            lines += [f"### {heading}", ""]
        lines += [body, ""]
    return "\n".join(lines).rstrip() + "\n"


def main():
    directory = sys.argv[1]
    out = report(directory)
    if "--into" in sys.argv:
        path = sys.argv[sys.argv.index("--into") + 1]
        doc = open(path).read()
        start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        with open(path, "w") as f:
            f.write(doc[:start] + "\n" + out + doc[end:])
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
