"""Checks what evaluate.py wrote against one `entlc eval --states` process per input file: for
every file, the rows of OUT/lines in line order carry exactly the numbers of the file's non-blank
lines (entlc's: cut at `\n` alone, blank lines counted) and exactly that process's output lines,
byte for byte; and OUT/results holds one row per result of the evaluated lines.
Usage: check.py OUT FILE SINGLE_OUTPUT [FILE SINGLE_OUTPUT …]"""
import hashlib
import json
import sys

from pyspark.sql import SparkSession, functions as F

out, pairs = sys.argv[1], list(zip(sys.argv[2::2], sys.argv[3::2]))
spark = SparkSession.builder.appName("entlc-check").master("local[2]").config("spark.ui.enabled", "false") \
    .getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
lines = spark.read.parquet(out + "/lines")
results = spark.read.parquet(out + "/results")
failures = []
expected_results = 0
total = lines.count()
for path, single in pairs:
    with open(path, "rb") as f:
        pieces = f.read().split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    numbers = [k for k, line in enumerate(pieces, start=1)
               if (line[:-1] if line.endswith(b"\r") else line).strip(b" \t") != b""]
    # Lines end at "\n" alone: entlc writes U+2028, U+0085 and the like as they are, inside
    # strings, where `str.splitlines` would split them.
    with open(single, "rb") as f:
        outputs = [o.decode("utf-8") for o in f.read().split(b"\n")]
    if outputs and outputs[-1] == "":
        outputs.pop()
    # Digests, not the outputs themselves: a million lines of `--all` are gigabytes for the driver.
    mine = lines.filter(lines.file.endswith("/" + path.split("/")[-1]))
    rows = sorted((r.line, r.digest) for r in mine.select("line", F.sha2("output", 256).alias("digest")).collect())
    if [n for n, _ in rows] != numbers:
        failures.append(f"{path}: line numbers differ from the file's non-blank lines")
    digests = [hashlib.sha256(o.encode("utf-8")).hexdigest() for o in outputs]
    if [d for _, d in rows] != digests:
        bad = next(i for i, (a, b) in enumerate(zip([d for _, d in rows] + [None] * len(digests), digests)) if a != b)
        failures.append(f"{path}: output differs first at its non-blank line {bad + 1}")
    expected_results += sum(len(json.loads(o).get("results", [])) for o in outputs)
if results.count() != expected_results:
    failures.append(f"OUT/results has {results.count()} rows, the outputs {expected_results} results")
spark.stop()
if failures:
    print("FAIL: " + "; ".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"agree: {total} lines in {len(pairs)} files, each with its line number and output bytes; "
      f"{expected_results} result rows")
