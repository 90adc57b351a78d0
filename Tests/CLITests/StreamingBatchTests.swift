@testable import entlc
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `eval --states` streams: the input is read in blocks (512 lines or 1 MiB) and waves of blocks,
/// and what comes out is exactly what evaluating each line alone gives, in input order, whatever
/// the thread count, the source (file or pipe), the line endings or the block boundaries.
@Suite struct StreamingBatchTests {
    private let arguments = ["eval", "examples/api.entl", "--feature", "api_calls", "--at", "2026-11-22T12:00:00Z"]

    /// The output for `copies` copies of the six-line fixture, built from one run over one copy:
    /// the same results, and error lines numbered in their copy.
    private func expected(copies: Int) throws -> String {
        let one = try runEntlc(arguments + ["--states", "Tests/Fixtures/states/api.states.jsonl"]).stdout
        var out = ""
        for k in 0..<copies {
            out += one.replacingOccurrences(of: #"{"line":2,"#, with: #"{"line":\#(6 * k + 2),"#)
                .replacingOccurrences(of: #"{"line":3,"#, with: #"{"line":\#(6 * k + 3),"#)
        }
        return out
    }

    @Test func moreLinesThanAWaveGiveTheSameBytesFromAFileAndFromAPipe() throws {
        // 12,000 lines: 24 blocks, several waves on one thread and on two.
        let fixture = try readRepoFile("Tests/Fixtures/states/api.states.jsonl")
        let input = String(repeating: fixture, count: 2_000)
        let path = try makeTemporaryDirectory() + "/states.jsonl"
        try input.write(toFile: path, atomically: true, encoding: .utf8)
        let want = try expected(copies: 2_000)
        for jobs in ["1", "2"] {
            let fromFile = try runEntlc(arguments + ["--states", path, "--jobs", jobs])
            #expect(fromFile.status == 0)
            #expect(fromFile.stdout == want, "file, --jobs \(jobs)")
            let fromPipe = try runEntlc(arguments + ["--states", "-", "--jobs", jobs], stdin: input)
            #expect(fromPipe.stdout == want, "stdin, --jobs \(jobs)")
        }
    }

    /// A stream with no newline (`/dev/zero`) ends the job past 1 GiB with exit 2 — it had run
    /// for ever, dropping the line as it read it — and `diff --states` the same.
    @Test func aLineThatNeverEndsEndsTheJob() throws {
        let eval = try runEntlc(arguments + ["--states", "/dev/zero", "--jobs", "1"])
        #expect(eval.status == 2)
        #expect(eval.stdout == "")
        #expect(eval.stderr == "entlc: error: line 1 of `/dev/zero` is longer than 1 GiB, the most entlc reads of "
                + "one input: read no further\n")
        let diff = try runEntlc(["diff", "examples/api.entl", "examples/api.entl", "--states", "/dev/zero"])
        #expect(diff.status == 2)
        #expect(diff.stderr.hasSuffix("line 1 of `/dev/zero` is longer than 1 GiB, the most entlc reads of one "
                                      + "input: read no further\n"), "\(diff.stderr)")
    }

    /// The lines before one that never ends are evaluated and written before the job ends (they
    /// had been thrown away with the wave that held them: none of 3, or 3,408 of 5,000, as the
    /// waves fell), whatever the thread count. A pipe, since a file would have to be 1 GiB.
    @Test(arguments: ["1", "2"])
    func theLinesBeforeALineThatNeverEndsAreWritten(jobs: String) throws {
        let fixture = "Tests/Fixtures/states/api.states.jsonl"
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        let command = ([entlcExecutable.path] + arguments + ["--states", "-", "--jobs", jobs]).joined(separator: " ")
        shell.arguments = ["-c", "cat \(fixture) /dev/zero 2>/dev/null | \(command)"]
        let out = Pipe(), err = Pipe()
        shell.standardOutput = out
        shell.standardError = err
        try shell.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 2)
        #expect(stdout == (try expected(copies: 1)))
        #expect(stderr == "entlc: error: line 7 of standard input is longer than 1 GiB, the most entlc reads of "
                + "one input: read no further\n")
    }

    @Test func blocksCutByBytesAndCRLFLineEndingsChangeNothing() throws {
        // Lines of 300 KB (JSON whitespace inside the object): blocks of a few lines each; CRLF.
        let fixture = try readRepoFile("Tests/Fixtures/states/api.states.jsonl")
        let padded = fixture.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("{") else { return String(line) }
            return "{" + String(repeating: " ", count: 300_000) + line.dropFirst()
        }.joined(separator: "\r\n")
        let input = String(repeating: padded, count: 20)
        let r = try runEntlc(arguments + ["--states", "-", "--jobs", "2"], stdin: input)
        #expect(r.status == 0)
        #expect(r.stdout == (try expected(copies: 20)))
        // Short CRLF lines from a file: whole lines taken from each chunk read at once, and the
        // line cut by the chunk's end taken as it comes.
        let short = String(repeating: fixture.replacingOccurrences(of: "\n", with: "\r\n"), count: 2_000)
        let path = try makeTemporaryDirectory() + "/crlf.jsonl"
        try short.write(toFile: path, atomically: true, encoding: .utf8)
        for jobs in ["1", "2"] {
            let fromFile = try runEntlc(arguments + ["--states", path, "--jobs", jobs])
            #expect(fromFile.stdout == (try expected(copies: 2_000)), "CRLF file, --jobs \(jobs)")
        }
    }

    /// A consumer reading the pipe sees each result while the input is still open.
    @Test func resultsComeOutBeforeTheInputEnds() throws {
        let process = Process()
        process.executableURL = entlcExecutable
        process.arguments = arguments + ["--states", "-"]
        process.currentDirectoryURL = packageRoot
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let fixture = try readRepoFile("Tests/Fixtures/states/api.states.jsonl")
        let first = String(fixture.prefix { $0 != "\n" }) + "\n"
        input.fileHandleForWriting.write(Data(first.utf8))
        // Read until one whole line has come out; the input stays open meanwhile.
        var received = Data()
        let deadline = Date().addingTimeInterval(20)
        while !received.contains(0x0A), Date() < deadline {
            received.append(output.fileHandleForReading.availableData)
        }
        #expect(process.isRunning)
        let line = String(decoding: received, as: UTF8.self)
        #expect(line.hasPrefix(#"{"at":"2026-11-22T12:00:00Z","environment":"live","customer":"a","#))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// Lines that give much output (as `--all --explain` does: hundreds of KB a line) are taken a
    /// few to a block, so a wave holds about `blockOutputBytes` a block, not 512 such lines; lines
    /// that give little go back up to 512 a block. Every line once, in order, either way.
    @Test func blocksShrinkWhenLinesGiveMuchOutput() throws {
        struct Recorded {
            var lines: [Int] = []
            var bytes = 0
        }
        let path = try makeTemporaryDirectory() + "/lines.jsonl"
        try String(repeating: "{}\n", count: 12_000).write(toFile: path, atomically: true, encoding: .utf8)
        for (perLine, jobs) in [(100_000, 1), (100_000, 2), (10, 2)] {
            var blocks: [[Int]] = []
            try JSONLines.process(path, jobs: jobs, initial: { Recorded() }, reset: { $0 = Recorded() }, line: { _, number, r in
                r.lines.append(number)
                r.bytes += perLine
            }, size: { $0.bytes }, consume: { blocks.append($0.lines) })
            #expect(blocks.flatMap { $0 } == Array(1...12_000))
            let largest = blocks.map(\.count).max() ?? 0
            if perLine > 1_000 {
                #expect(largest * perLine <= 4 * JSONLines.blockOutputBytes, "blocks of \(largest) lines")
                // From the third wave on (4, then 16 lines a block before), all but the last block.
                #expect(blocks.dropFirst(2 * 4 * jobs).dropLast().allSatisfy { $0.count == JSONLines.blockOutputBytes / perLine })
            } else {
                #expect(largest == JSONLines.blockLines)
            }
        }
    }
}
