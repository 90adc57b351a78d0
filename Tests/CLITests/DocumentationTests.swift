import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The documentation is tested like code: every ```entl block in README.md and docs/ checks
/// clean (or produces exactly the diagnostics its info string names: ```entl expect=E201), and
/// the `test` blocks in it pass; every ```swift block is part of the example package in
/// examples/embed/ (which CI builds and runs); every ```json state block decodes; every
/// relative link points at a file that exists; nothing points at material outside the repository.
@Suite struct DocumentationTests {
    struct Block: CustomStringConvertible {
        var file: String
        var line: Int
        var info: [String]
        var body: String
        var description: String { "\(file):\(line)" }
    }

    static var markdownFiles: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: repoPath("docs"))) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The fenced code blocks of a markdown file (fences at the start of a line).
    static func blocks(in file: String) throws -> [Block] {
        var out: [Block] = []
        var open: Block?
        for (i, line) in try readRepoFile(file).components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if var b = open {
                    b.body = String(b.body.dropLast())  // the newline before the fence
                    out.append(b)
                    open = nil
                } else {
                    let info = line.dropFirst(3).split(separator: " ").map(String.init)
                    open = Block(file: file, line: i + 1, info: info, body: "")
                }
            } else if open != nil {
                open!.body += line + "\n"
            }
        }
        return out
    }

    static func blocks(_ language: String) -> [Block] {
        markdownFiles.flatMap { (try? blocks(in: $0)) ?? [] }.filter { $0.info.first == language }
    }

    @Test func everyEntlBlockChecksAsMarkedAndItsTestsPass() throws {
        let blocks = Self.blocks("entl")
        #expect(blocks.count > 15)
        for block in blocks {
            let expected = block.info.first { $0.hasPrefix("expect=") }
                .map { Set($0.dropFirst("expect=".count).split(separator: ",").map(String.init)) } ?? []
            let source = SourceFile(path: "\(block.file):\(block.line)", text: block.body)
            let compilation = Compiler.compile([source])
            let codes = Set(compilation.checked.diagnostics.map(\.code.id))
            #expect(codes == expected, "\(block): \(compilation.checked.sortedDiagnostics.map { "\($0.code.id) \($0.range.start): \($0.message)" })")
            guard let graph = compilation.graph else { continue }
            let runner = TestRunner(checked: compilation.checked, graph: graph) { path in
                Array(try Data(contentsOf: URL(fileURLWithPath: repoPath(path))))
            }
            for outcome in runner.run() where !outcome.passed {
                let failures = outcome.failures.map { "\($0.expectation): \($0.actual)" }.joined(separator: "; ")
                Issue.record("\(block): test \"\(outcome.name)\" fails: \(outcome.error ?? "") \(failures)")
            }
        }
    }

    /// A ```swift block compiles as written: it is part of examples/embed/, which CI builds.
    @Test func everySwiftBlockIsPartOfTheEmbedExample() throws {
        var sources = ""
        let root = repoPath("examples/embed")
        let files = ["Package.swift"] + ((try? FileManager.default.contentsOfDirectory(atPath: root + "/Sources/embed")) ?? [])
            .map { "Sources/embed/" + $0 }
        for f in files.sorted() where f.hasSuffix(".swift") {
            sources += try String(contentsOfFile: root + "/" + f, encoding: .utf8) + "\n"
        }
        let blocks = Self.blocks("swift")
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(sources.contains(block.body), "\(block) is not in examples/embed/")
        }
    }

    @Test func everyStateExampleDecodes() throws {
        let blocks = Self.blocks("json").filter { $0.info.contains("state") }
        #expect(!blocks.isEmpty)
        for block in blocks {
            do {
                _ = try PurchaseState(json: block.body)
            } catch {
                Issue.record("\(block): \(error)")
            }
        }
    }

    @Test func relativeLinksPointAtFilesThatExist() throws {
        for file in Self.markdownFiles {
            let text = try readRepoFile(file)
            let directory = (file as NSString).deletingLastPathComponent
            var rest = text[...]
            while let open = rest.range(of: "](") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let target = String(rest[..<close])
                rest = rest[close...]
                guard !target.hasPrefix("http"), !target.hasPrefix("#"), !target.contains(" ") else { continue }
                let path = String(target.split(separator: "#").first ?? "")
                let full = directory.isEmpty ? path : directory + "/" + path
                #expect(FileManager.default.fileExists(atPath: repoPath(full)), "\(file) links to \(target), which does not exist")
            }
        }
    }

    /// A clone has no design material outside the repository: nothing may point at it.
    @Test func nothingPointsOutsideTheRepository() throws {
        let skipped: Set<String> = [".git", ".build", "out", ".venv", "node_modules"]
        var offenders: [String] = []
        let e = FileManager.default.enumerator(atPath: packageRoot.path)
        while let path = e?.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if skipped.contains(name) || name.hasPrefix(".build") {
                e?.skipDescendants()
                continue
            }
            guard [".swift", ".md", ".ebnf", ".json", ".entl", ".sh", ".py", ".lua", ".ts", ".yml"].contains(where: name.hasSuffix),
                  let text = try? String(contentsOfFile: repoPath(path), encoding: .utf8) else { continue }
            if text.contains("shared/" + "spec") || text.contains("../" + "shared") { offenders.append(path) }
        }
        #expect(offenders == [])
    }

    /// The README shows the output of its main command; it must be what the command prints.
    @Test func readmeShowsTheMainCommandsRealOutput() throws {
        let readme = try readRepoFile("README.md")
        let intro = try #require(readme.range(of: "(a purchase-tracker state, [docs/state.md](docs/state.md)):\n\n```\n"))
        let rest = readme[intro.upperBound...]
        let end = try #require(rest.range(of: "```"))
        let r = try runEntlc(["eval", "examples/photos.entl", "--state", "examples/photos.state.json", "--all"])
        #expect(String(rest[..<end.lowerBound]) == r.stdout)
        #expect(readme.contains("swift run entlc eval examples/photos.entl --state examples/photos.state.json --all"))
    }

    /// docs/cli.md's `changes` example is the command's output (it had lost a line when the
    /// example's credits changed).
    @Test func theChangesExampleIsTheCommandsOutput() throws {
        let cli = try readRepoFile("docs/cli.md")
        let intro = try #require(cli.range(of: "--to-time 2026-12-10T00:00:00Z`):\n\n```text\n"))
        let rest = cli[intro.upperBound...]
        let end = try #require(rest.range(of: "```"))
        let r = try runEntlc(["changes", "examples/api.entl", "--state", "examples/api.state.json",
                              "--from-time", "2026-11-22T00:00:00Z", "--to-time", "2026-12-10T00:00:00Z"])
        #expect(r.status == 0)
        #expect(String(rest[..<end.lowerBound]) == r.stdout)
    }
}
