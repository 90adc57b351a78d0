import Swift
import Glibc

/// The shared part of every probe: the file held in memory, split into lines beforehand (untimed),
/// and the timer (median ns per line over several passes). Built together with one probe file.

/// One JSONL file in memory: `bytes` has 64 bytes of padding after the last line so that a probe may
/// load a whole 8/16/64-byte word starting at any byte of a line.
struct Input {
    let name: String
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int
    /// Start offset and length of each non-blank line (without its newline).
    let lines: [(start: Int, count: Int)]

    init(path: String) {
        guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
        fseek(file, 0, SEEK_END)
        count = ftell(file)
        fseek(file, 0, SEEK_SET)
        bytes = .allocate(capacity: count + 64)
        (bytes + count).initialize(repeating: 0x20, count: 64)
        guard fread(bytes, 1, count, file) == count else { fatalError("short read of \(path)") }
        fclose(file)
        name = String(path.split(separator: "/").last ?? "")
        var lines: [(start: Int, count: Int)] = []
        var start = 0
        for i in 0...count where i == count || bytes[i] == 0x0A {
            if i > start { lines.append((start, i - start)) }
            start = i + 1
        }
        self.lines = lines
    }
}

func nowNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Runs `body` over every line `passes` times and prints the median ns per line. `body` returns a
/// number folded into a checksum so that the work cannot be optimized away.
@inline(__always)
func measure(_ label: String, _ input: Input, passes: Int = 7, _ body: (UnsafePointer<UInt8>, Int) -> Int) {
    var times: [Double] = []
    var checksum = 0
    let base = UnsafePointer(input.bytes)
    for _ in 0..<passes {
        let start = nowNanoseconds()
        for line in input.lines { checksum &+= body(base + line.start, line.count) }
        times.append(Double(nowNanoseconds() - start) / Double(input.lines.count))
    }
    times.sort()
    let median = times[times.count / 2]
    let padded = label + String(repeating: " ", count: max(0, 28 - label.count))
    let file = input.name + String(repeating: " ", count: max(0, 24 - input.name.count))
    print("\(padded) \(file) \(String(Int(median * 10) / 10)).\(Int(median * 10) % 10) ns/line  (checksum \(checksum))")
}

/// The input files: the command-line arguments, or the two benchmark files.
func inputPaths() -> [String] {
    let args = Array(CommandLine.arguments.dropFirst())
    if !args.isEmpty { return args }
    return ["/work/main/Benchmarks/out/app-states-long.jsonl", "/work/main/Benchmarks/out/app-states-short.jsonl"]
}
