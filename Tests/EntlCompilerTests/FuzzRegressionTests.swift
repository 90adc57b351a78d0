import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The fuzz targets' invariants (Tests/EntlTestSupport/Invariants.swift) over every rule file and
/// state in the repository, and over every input a fuzzer ever found (Tests/Fixtures/fuzz/).
@Suite struct FuzzRegressionTests {
    static func files(under directories: [String], endingIn suffixes: [String]) -> [String] {
        var out: [String] = []
        for dir in directories {
            guard let e = FileManager.default.enumerator(atPath: repoPath(dir)) else { continue }
            for case let path as String in e {
                // Build folders (examples/embed/.build), other hidden entries and what an example
                // writes (examples/spark/out: gigabytes of states and results) are not fixtures.
                let name = (path as NSString).lastPathComponent
                if name.hasPrefix(".") || name == "out" {
                    e.skipDescendants()
                    continue
                }
                guard suffixes.contains(where: path.hasSuffix) || dir.hasPrefix("Tests/Fixtures/fuzz") else { continue }
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: repoPath(dir + "/" + path), isDirectory: &isDirectory), !isDirectory.boolValue {
                    out.append(dir + "/" + path)
                }
            }
        }
        return out.sorted()
    }

    @Test(arguments: files(under: ["examples", "Tests/Fixtures/valid", "Tests/Fixtures/fmt", "Tests/Fixtures/tests",
                                   "Tests/Fixtures/fuzz/roundtrip"], endingIn: [".entl"]))
    func roundTrip(_ path: String) throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: repoPath(path))))
        #expect(roundTripProblem(bytes) == nil, "\(path)")
    }

    @Test func stateDecodingAndEvaluation() throws {
        var inputs: [(String, [UInt8])] = []
        for path in FuzzRegressionTests.files(under: ["examples", "Tests/Fixtures/states", "Tests/Fixtures/tests",
                                                      "Tests/Fixtures/fuzz/state"], endingIn: [".json", ".jsonl"]) {
            let data = try Array(Data(contentsOf: URL(fileURLWithPath: repoPath(path))))
            if path.hasSuffix(".jsonl") {
                for (i, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                    inputs.append(("\(path):\(i + 1)", Array(line)))
                }
            } else {
                inputs.append((path, data))
            }
        }
        #expect(inputs.count > 10)
        for (name, bytes) in inputs {
            #expect(stateProblem(bytes) == nil, "\(name)")
        }
    }

    /// The built examples, and every artifact input a fuzzer found.
    @Test func artifactDecodingAndEvaluation() throws {
        var inputs: [(String, [UInt8])] = []
        for path in FuzzRegressionTests.files(under: ["examples", "Tests/Fixtures/valid"], endingIn: [".entl"]) {
            let source = SourceFile(path: path, text: try readRepoFile(path))
            guard let graph = Compiler.compile([source], lint: false).graph else { continue }
            inputs.append((path, RuleGraphArtifact.encode(graph, compiler: "entlc test")))
        }
        for path in FuzzRegressionTests.files(under: ["Tests/Fixtures/fuzz/artifact"], endingIn: []) {
            inputs.append((path, try Array(Data(contentsOf: URL(fileURLWithPath: repoPath(path))))))
        }
        #expect(inputs.count >= 5)
        for (name, bytes) in inputs {
            #expect(artifactProblem(bytes) == nil, "\(name)")
        }
    }
}
