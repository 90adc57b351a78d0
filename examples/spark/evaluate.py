"""Evaluate a rule set for every customer of a dataset on Apache Spark, with `entlc eval --states -`.

The input files are read as bytes (`binaryFiles`) and cut into lines at `\n` alone, as entlc
cuts them: Spark's text reader would also end a line at a lone `\r` (JSON whitespace) and replace
bytes that are not UTF-8 with U+FFFD (a line entlc must refuse) — both silently. So one file is
read by one task: give a large dataset as many files (Spark's own output is). Each partition's
lines are piped through one `entlc` process (the binary and the rules are shipped to the executors
with `SparkContext.addFile`); entlc writes one JSON line per input line, in order, so the results
join back to the input by position. A line entlc cannot evaluate comes back as an error record,
never a failed task. Two DataFrames are written:

  OUT/lines    one row per non-blank input line:
               file (string, the input file), line (long, 1-based line of that file),
               customer (string, null for an error),
               error (string, null unless the line could not be evaluated),
               output (string: entlc's JSON line, an error record numbered with `line`)
  OUT/results  one row per result of a line that was evaluated:
               file, line, customer, kind, name, decision, allowed (boolean), balance (long, null when
               unlimited or not metered), valid_until (string, null when nothing changes)

Usage:
  spark-submit evaluate.py --entlc PATH (--graph RULES.graph.json | --rules RULES.entl|DIR) \
      --states STATES.jsonl --out DIR [--at INSTANT] [--env live|test] QUERY...
  --graph is what `entlc build` wrote: the executors load it without compiling (and a corrupt
  file fails the job at once, not customer by customer).
  QUERY is what `entlc eval` takes: --all, --entitlement E, --feature F [--amount N], --product P.
"""

import argparse
import json
import os
import subprocess
import threading

from pyspark import SparkFiles
from pyspark.sql import SparkSession, types as T


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entlc", required=True, help="the entlc binary (shipped to the executors)")
    rules = parser.add_mutually_exclusive_group(required=True)
    rules.add_argument("--graph", help="the rules as `entlc build` wrote them (shipped; preferred)")
    rules.add_argument("--rules", help="a .entl file or a directory of them (shipped; compiled on every executor)")
    parser.add_argument("--states", required=True, help="JSONL customer states (any Spark-readable path)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--at", help="evaluate at this instant (default: each state's `now`, else the time of the run)")
    parser.add_argument("--env", choices=["live", "test"], default=None)
    return parser.parse_known_args()


def entlc_command(entlc, rules_option, rules, query, at, env):
    """[entlc, "eval", "--graph" or "--rules", path, …]; the rules flag is dropped for .entl files."""
    command = [entlc, "eval", rules_option, rules, "--states", "-", "--jobs", "1", *query]
    if at:
        command += ["--at", at]
    if env:
        command += ["--env", env]
    return command


def lines_of(pair):
    """(file, bytes) → (file, line number, line bytes) for each line entlc does not skip as blank,
    cut at `\n` alone and numbered with blank lines counted, as entlc does. The bytes are given as
    they stand (a `\r` before the `\n` too): entlc judges them again as it reads them, so it must
    see the same (a line `\r\r` given as `\r` would come back blank, and the counts apart)."""
    path, data = pair
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()  # the end of the last line, not a line
    for number, line in enumerate(pieces, start=1):
        content = line[:-1] if line.endswith(b"\r") else line
        if content.strip(b" \t") != b"":
            yield path, number, line


def evaluate_partition(command_template):
    """The function for mapPartitions: (file, line number, bytes) in → (file, line number, entlc output) out."""

    def run(rows):
        entlc = SparkFiles.get(os.path.basename(command_template[0]))
        rules = SparkFiles.get(os.path.basename(command_template[3].rstrip("/")))
        flag = ["--graph"] if command_template[2] == "--graph" else []
        command = [entlc, command_template[1], *flag, rules, *command_template[4:]]
        numbers = []
        failed = []
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        # Write from a thread while reading: entlc streams, so neither pipe may wait on the other.
        # The bytes go as they are: entlc judges them.
        def feed():
            try:
                for path, number, line in rows:
                    numbers.append((path, number))
                    process.stdin.write(line + b"\n")
            except BaseException as error:  # the input failed: the partition must fail, not end short
                failed.append(error)
            finally:
                try:
                    process.stdin.close()
                except BrokenPipeError as error:  # entlc stopped reading: its exit says why
                    failed.append(error)

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        index = 0
        for raw in process.stdout:
            # entlc writes exactly one line per non-blank input line, in input order; `numbers`
            # already holds this line's number (it was written before its output could come).
            yield (*numbers[index], raw.decode("utf-8").rstrip("\n"))
            index += 1
        writer.join()
        # entlc's own failure first: one that stops it early (rules that do not compile, a damaged
        # graph) also breaks the pipe the lines go into, and its message says why.
        error = process.stderr.read().decode("utf-8", "replace")
        if process.wait() != 0:
            raise RuntimeError(f"entlc failed ({process.returncode}): {error}")
        if failed:
            raise RuntimeError("reading the partition's lines failed") from failed[0]
        if index != len(numbers):
            raise RuntimeError(f"entlc wrote {index} lines for {len(numbers)} states")

    return run


def renumbered(number, output):
    """An error record carries the line number within the partition's input; give it the line
    number in the dataset (entlc's compact layout, so the bytes match a single-process run)."""
    if not output.startswith('{"line":'):
        return output
    record = json.loads(output)
    return json.dumps({"line": number, "error": record["error"]}, separators=(",", ":"), ensure_ascii=False)


def to_rows(triple):
    path, number, output = triple
    output = renumbered(number, output)
    value = json.loads(output)
    return (path, number, value.get("customer"), value.get("error"), output)


def to_results(row):
    path, number, customer, error, output = row
    if error is not None:
        return []
    out = []
    for r in json.loads(output).get("results", []):
        balance = r.get("balance")
        out.append((path, number, customer, r.get("kind"), r.get("name"), r.get("decision"), r.get("allowed"),
                    balance if isinstance(balance, int) else None, r.get("valid_until")))
    return out


LINES = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("line", T.LongType(), False),
    T.StructField("customer", T.StringType(), True),
    T.StructField("error", T.StringType(), True),
    T.StructField("output", T.StringType(), False),
])

RESULTS = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("line", T.LongType(), False),
    T.StructField("customer", T.StringType(), True),
    T.StructField("kind", T.StringType(), True),
    T.StructField("name", T.StringType(), True),
    T.StructField("decision", T.StringType(), True),
    T.StructField("allowed", T.BooleanType(), True),
    T.StructField("balance", T.LongType(), True),
    T.StructField("valid_until", T.StringType(), True),
])


def main():
    arguments, query = parse_arguments()
    spark = SparkSession.builder.appName("entlc-evaluate").getOrCreate()
    sc = spark.sparkContext
    sc.addFile(os.path.abspath(arguments.entlc))
    rules_option, rules = ("--graph", arguments.graph) if arguments.graph else ("--rules", arguments.rules)
    sc.addFile(os.path.abspath(rules), recursive=os.path.isdir(rules))
    command = entlc_command(os.path.abspath(arguments.entlc), rules_option, os.path.abspath(rules), query, arguments.at,
                            arguments.env)

    # Every non-blank line of every file, numbered within its file as entlc numbers it.
    numbered = sc.binaryFiles(arguments.states).flatMap(lines_of)
    evaluated = numbered.mapPartitions(evaluate_partition(command)).map(to_rows)
    lines = spark.createDataFrame(evaluated, LINES).cache()
    lines.write.mode("overwrite").parquet(os.path.join(arguments.out, "lines"))
    results = spark.createDataFrame(lines.rdd.flatMap(to_results), RESULTS)
    results.write.mode("overwrite").parquet(os.path.join(arguments.out, "results"))
    # The outputs as text too, for comparing with a single-process run.
    lines.select("output").write.mode("overwrite").text(os.path.join(arguments.out, "output"))
    total = lines.count()
    errors = lines.filter(lines.error.isNotNull()).count()
    print(f"evaluated {total} lines ({errors} error records) into {arguments.out}")
    spark.stop()


if __name__ == "__main__":
    main()
