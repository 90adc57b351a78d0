"""What the Python benchmark scripts share: the simdjson anchor (parsing every line of a JSONL file
with simdjson and nothing else), the same with Python's reading and splitting of the file counted
(context), and the CPU time of finished child processes."""
import resource
import time

import simdjson


def lines_of(path):
    """The non-blank lines of `path`, as bytes."""
    with open(path, "rb") as f:
        return [line for line in f.read().split(b"\n") if line.strip()]


def parse_lines(path):
    """The anchor: parses each non-blank line of `path` with pysimdjson, and times the parsing
    alone; (wall seconds, CPU seconds). The file is read and split into lines first, untimed: in
    Python that takes longer than simdjson takes to parse the lines (about 2.5× on 340-byte lines),
    and it is not simdjson's work (simdjson's own document stream splits JSONL as it parses)."""
    lines = lines_of(path)
    parser = simdjson.Parser()
    start, cpu = time.perf_counter(), time.process_time()
    for line in lines:
        parser.parse(line)
    return time.perf_counter() - start, time.process_time() - cpu


def read_and_parse_lines(path):
    """Context, not the anchor: reads `path`, splits it into lines and parses each with pysimdjson,
    all timed (what the anchor measured until 2026-11-26); (wall seconds, CPU seconds)."""
    parser = simdjson.Parser()
    start, cpu = time.perf_counter(), time.process_time()
    for line in lines_of(path):
        parser.parse(line)
    return time.perf_counter() - start, time.process_time() - cpu


def children_cpu():
    """User + system seconds of the child processes waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
