import Foundation

// How entlc-bench measures: medians of repeated runs, commands timed by a shell around them, and
// the figures of a run as Markdown tables and as JSON for Benchmarks/report.py.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("entlc-bench: " + message + "\n").utf8))
    exit(2)
}

func option(_ name: String, in args: [String]) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func write(_ text: String, to path: String) {
    do {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(path): \(error)")
    }
}

/// The median of repeated timings, in seconds.
func median(_ samples: [Double]) -> Double {
    let s = samples.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Times `body` `runs` times and returns the median in seconds.
func measure(runs: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    return median((0..<runs).map { _ in seconds(clock.measure(body)) })
}

/// Runs a command as a shell would: elapsed seconds, timed by a shell around it (so neither the
/// size of this process nor Foundation's spawning counts), and peak RSS in KiB (/usr/bin/time).
func run(_ arguments: [String], stdoutTo path: String = "/dev/null",
         accepting statuses: Set<Int32> = [0]) -> (Double, Int) {
    let rss = NSTemporaryDirectory() + "entlc-bench-rss-\(getpid())"
    let script = #"out=$1 rss=$2; shift 2; s=$(date +%s%N); /usr/bin/time -f %M -o "$rss" "$@" > "$out"; "#
        + #"status=$?; e=$(date +%s%N); echo $((e - s)); exit $status"#
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script, "sh", path, rss] + arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    do { try p.run() } catch { fail("cannot run \(arguments[0]): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let kib = (try? String(contentsOfFile: rss, encoding: .utf8)).flatMap { Int($0.split(separator: "\n").last ?? "") }
    try? FileManager.default.removeItem(atPath: rss)
    guard statuses.contains(p.terminationStatus), let nanoseconds = Double(text), let kib else {
        fail("cannot time \(arguments) (exit \(p.terminationStatus))")
    }
    return (nanoseconds / 1e9, kib)
}

/// What a run prints (Markdown) and the figures it measured (written as one JSON object, for the
/// summary table of BENCHMARKS.md).
struct Report {
    var lines: [String] = []
    var figures: [String: Double] = [:]

    mutating func row(_ cells: String...) { lines.append("| " + cells.joined(separator: " | ") + " |") }
    mutating func text(_ s: String) { lines.append(s) }
    mutating func figure(_ name: String, _ value: Double) { figures[name] = value }

    /// Prints the Markdown; writes the figures to `path` when given.
    func finish(figuresTo path: String?) {
        print(lines.joined(separator: "\n"))
        guard let path else { return }
        guard let data = try? JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys, .prettyPrinted])
        else { fail("cannot encode the figures") }
        write(String(decoding: data, as: UTF8.self) + "\n", to: path)
    }
}

func coreCount() -> Int { ProcessInfo.processInfo.activeProcessorCount }

func fmt(_ x: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", x)
}
