"""What the Python benchmark scripts share: parsing every line of a JSONL file with simdjson and
nothing else (the anchor), and the CPU time of finished child processes."""
import resource
import time

import simdjson


def parse_lines(path):
    """Parses each non-blank line of `path` with pysimdjson; (wall seconds, CPU seconds)."""
    parser = simdjson.Parser()
    start, cpu = time.perf_counter(), time.process_time()
    with open(path, "rb") as f:
        data = f.read()
    for line in data.split(b"\n"):
        if line.strip():
            parser.parse(line)
    return time.perf_counter() - start, time.process_time() - cpu


def children_cpu():
    """User + system seconds of the child processes waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
