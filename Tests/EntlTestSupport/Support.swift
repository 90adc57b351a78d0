import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The package root (the directory holding Package.swift).
public let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("Package.swift not found above \(#filePath)")
}()

public func repoPath(_ relative: String) -> String {
    packageRoot.appendingPathComponent(relative).path
}

public func readRepoFile(_ relative: String) throws -> String {
    try String(contentsOfFile: repoPath(relative), encoding: .utf8)
}

// MARK: - Marked sources

/// Source text with position markers `1️⃣` … `9️⃣` (swift-format's MarkedText): the markers are
/// removed and their 1-based line and column (in Unicode scalars) remembered.
public struct MarkedSource {
    public let text: String
    public let markers: [String: EntlSyntax.SourceLocation]

    public static let markerNames = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]

    public init(_ marked: String) {
        var text = ""
        var markers: [String: EntlSyntax.SourceLocation] = [:]
        var line = 1, column = 1, offset = 0
        for ch in marked {
            let s = String(ch)
            if MarkedSource.markerNames.contains(s) {
                markers[s] = EntlSyntax.SourceLocation(line: line, column: column, offset: offset)
                continue
            }
            text.append(ch)
            offset += s.utf8.count
            if ch == "\n" {
                line += 1
                column = 1
            } else {
                column += s.unicodeScalars.count
            }
        }
        self.text = text
        self.markers = markers
    }
}

/// What a test expects of one diagnostic.
public struct ExpectedDiagnostic: CustomStringConvertible {
    public var code: String
    public var message: String
    public var marker: String
    public var severity: Severity?

    public init(_ code: String, _ message: String, at marker: String = "1️⃣", severity: Severity? = nil) {
        self.code = code
        self.message = message
        self.marker = marker
        self.severity = severity
    }

    public var description: String { "\(code) at \(marker): \(message)" }
}

/// Checks `marked` as one file and expects exactly `expected` (code, message and start position
/// of each), in source order.
public func assertDiagnostics(
    _ marked: String, _ expected: [ExpectedDiagnostic],
    environments: [EnvironmentName] = EnvironmentName.allCases,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let source = MarkedSource(marked)
    let checked = Compiler.check([SourceFile(path: "test.entl", text: source.text)], environments: environments)
    let actual = checked.sortedDiagnostics
    let render: (Diagnostic) -> String = { "\($0.code.id) at \($0.range.start): \($0.message)" }
    let wanted = expected.map { e -> String in
        guard let loc = source.markers[e.marker] else { return "missing marker \(e.marker)" }
        return "\(e.code) at \(loc): \(e.message)"
    }
    #expect(actual.map(render) == wanted, sourceLocation: sourceLocation)
    for (a, e) in zip(actual, expected) where e.severity != nil {
        #expect(a.severity == e.severity, sourceLocation: sourceLocation)
    }
}

/// The language reference's grandfathering example (docs/language.md): monthly subscribers who
/// bought before 2026-06-01 keep raw export and 20,000 calls. Shared by the lint, runtime and
/// `entlc diff` tests.
public let grandfatheringExample = #"""
product pro_monthly: subscription { period month }
product pro_annual: subscription { period year }
feature raw_export: boolean
feature api_calls: metered
entitlement pro_legacy = pro_monthly purchased before "2026-06-01T00:00:00Z" {
  grants raw_export
  grants api_calls 20_000 per month
}
entitlement pro = pro_monthly purchased since "2026-06-01T00:00:00Z" or pro_annual {
  grants api_calls 10_000 per month
}
"""#

/// Parses and checks text as one file.
public func check(_ text: String, path: String = "test.entl") -> CheckedRuleSet {
    Compiler.check([SourceFile(path: path, text: text)])
}

// MARK: - Golden files

/// Compares `actual` with the golden file at `Tests/Fixtures/golden/<name>`. A missing golden is
/// written and the test fails; `RECORD_SNAPSHOTS=1` re-records every golden.
public func assertGolden(_ actual: String, named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    assertGolden(actual, at: "Tests/Fixtures/golden/" + name, sourceLocation: sourceLocation)
}

/// `assertGolden(_:named:)` for a golden file anywhere in the repository (`relativePath`).
public func assertGolden(_ actual: String, at relativePath: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let name = relativePath
    let path = repoPath(relativePath)
    let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
    let existing = try? String(contentsOfFile: path, encoding: .utf8)
    if record || existing == nil {
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? actual.write(toFile: path, atomically: true, encoding: .utf8)
        if existing == nil {
            Issue.record("golden \(name) was missing; recorded it — rerun", sourceLocation: sourceLocation)
        }
        return
    }
    #expect(actual == existing, "golden \(name) differs (RECORD_SNAPSHOTS=1 re-records)", sourceLocation: sourceLocation)
}

// MARK: - Running the built binary

public struct CommandResult: Sendable {
    public var stdout: String
    public var stderr: String
    public var status: Int32
}

/// The `entlc` executable built next to the test bundle.
public let entlcExecutable: URL = {
    #if os(Linux)
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
    let me = Bundle.main.bundleURL
    #endif
    var dir = me.deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("entlc")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir.deleteLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/entlc")
}()

/// Writing to a child that has exited fails with EPIPE instead of killing the test process.
private let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// Runs `entlc ARGS` in the package root with `NO_COLOR` unset unless given in `environment`.
/// Runs `count` copies of `entlc ARGUMENTS` at once in `directory` (output discarded) and returns
/// their exit statuses once all have ended. With `lockedFile`, that file is held locked (`flock`)
/// while they start, so they all wait for it together: they truly overlap.
public func runEntlcConcurrently(_ count: Int, _ arguments: [String], directory: String,
                                 lockedFile: String? = nil) throws -> [Int32] {
    try runEntlcConcurrently(Array(repeating: arguments, count: count), directory: directory, lockedFile: lockedFile)
}

/// Runs `entlc` once with each of `commands` at once, as `runEntlcConcurrently(_:_:directory:lockedFile:)`
/// does; their exit statuses in the same order.
public func runEntlcConcurrently(_ commands: [[String]], directory: String,
                                 lockedFile: String? = nil) throws -> [Int32] {
    let held = lockedFile.map { open(directory + "/" + $0, O_RDONLY) } ?? -1
    if held >= 0 { flock(held, LOCK_EX) }
    defer { if held >= 0 { close(held) } }
    var processes: [Process] = []
    for arguments in commands {
        let p = Process()
        p.executableURL = entlcExecutable
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        processes.append(p)
    }
    if held >= 0 {
        usleep(300_000)
        flock(held, LOCK_UN)
    }
    for p in processes { p.waitUntilExit() }
    return processes.map(\.terminationStatus)
}

public func runEntlc(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                     directory: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = entlcExecutable
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory ?? packageRoot.path)
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "NO_COLOR")
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    _ = ignoreBrokenPipes
    try process.run()
    // Standard input is written from its own thread: a child that streams (writes output while
    // it reads) would otherwise block on a full output pipe while we block on its full input
    // pipe. A child that exits without reading all its input must not take the test process
    // with it (SIGPIPE ignored).
    let group = DispatchGroup()
    let writer = input.fileHandleForWriting
    group.enter()
    DispatchQueue.global().async {
        if let stdin { try? writer.write(contentsOf: Data(stdin.utf8)) }
        try? writer.close()
        group.leave()
    }
    // Read both pipes concurrently so a large stderr cannot block the child.
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self), status: process.terminationStatus)
}

/// A fresh temporary directory. Every one is made inside one directory of this test process,
/// removed when the process exits (a test that removes its own early may); a directory left by a
/// test process that was killed is removed by the next one (one named by a process that no longer
/// exists, or one of the older, per-directory kind when it is a day old: a test process of
/// another checkout may still be using a newer one).
public func makeTemporaryDirectory() throws -> String {
    let path = temporaryRoot + "/" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// `entlc-tests-PID` in the system's temporary directory, made once.
private let temporaryRoot: String = {
    let prefix = "entlc-tests-", parent = NSTemporaryDirectory()
    let dayAgo = Date(timeIntervalSinceNow: -86_400)
    for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
        let stale: Bool
        if let pid = pid_t(name.dropFirst(prefix.count)) {
            stale = kill(pid, 0) != 0 && errno == ESRCH
        } else {
            let modified = try? FileManager.default.attributesOfItem(atPath: parent + name)[.modificationDate] as? Date
            stale = modified.map { $0 < dayAgo } ?? false
        }
        if stale { try? FileManager.default.removeItem(atPath: parent + name) }
    }
    let root = parent + prefix + String(getpid())
    atexit { try? FileManager.default.removeItem(atPath: temporaryRoot) }
    return root
}()

// MARK: - Evaluating

/// Compiles rule text to a graph; records an issue (and returns an empty graph) on errors.
public func compileGraph(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> RuleGraph {
    let compilation = Compiler.compile([SourceFile(path: "rules.entl", text: text)])
    guard let graph = compilation.graph else {
        Issue.record("rules do not compile: \(compilation.checked.sortedDiagnostics.map(\.message))", sourceLocation: sourceLocation)
        let empty = EnvironmentGraph(products: [], entitlements: [], features: [], entitlementOrder: [])
        return RuleGraph(app: nil, live: empty, test: empty)
    }
    return graph
}

/// An instant from RFC 3339 text (tests only: traps on bad text).
public func instant(_ text: String) -> Instant {
    guard let i = Instant(rfc3339: text) else { fatalError("bad instant \(text)") }
    return i
}

/// Decodes docs/state.md JSON (tests only: traps on bad JSON).
public func state(_ json: String) -> PurchaseState {
    do {
        return try PurchaseState(json: json)
    } catch {
        fatalError("bad state: \(error)")
    }
}

/// Evaluates `graph` against `state` at `at`.
public func evaluate(_ graph: RuleGraph, _ state: PurchaseState, at: String, environment: Environment? = nil,
                     explain: Bool = false, unlock: Bool = false) throws -> Evaluation {
    try Evaluation(graph: graph, state: state, environment: environment, at: instant(at), explain: explain, unlock: unlock)
}
