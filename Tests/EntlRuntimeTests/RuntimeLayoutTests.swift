import EntlTestSupport
import Foundation
import Testing

/// ARCHITECTURE.md's map of `Sources/EntlRuntime` stays true: each folder names no type declared
/// in a folder it may not use, and the folders, files and lines keep their sizes.
@Suite struct RuntimeLayoutTests {
    /// Each folder and the folders it may use, as ARCHITECTURE.md draws them.
    static let mayUse: [String: Set<String>] = [
        "Support": [],
        "Crypto": ["Support"],
        "Graph": ["Support", "Crypto"],
        "State": ["Support", "Graph"],
        "Results": ["Support", "Graph", "State"],
        "Evaluation": ["Support", "Crypto", "Graph", "State", "Results", "Ledger"],
        "Ledger": ["Support", "Crypto", "Graph", "State", "Results", "Evaluation"],
        "Embedding": ["Support", "Crypto", "Graph", "State", "Results", "Evaluation", "Ledger"],
    ]

    /// Every Swift file of the runtime: (folder, file name, text).
    static let files: [(folder: String, name: String, text: String)] = {
        let root = repoPath("Sources/EntlRuntime")
        let paths = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            let parts = path.split(separator: "/")
            let text = (try? String(contentsOfFile: root + "/" + path, encoding: .utf8)) ?? ""
            return (parts.count > 1 ? String(parts[0]) : "", String(parts.last!), text)
        }
    }()

    @Test func everyFileIsInAKnownFolder() {
        #expect(RuntimeLayoutTests.files.count > 50)
        for file in RuntimeLayoutTests.files {
            #expect(RuntimeLayoutTests.mayUse[file.folder] != nil, "\(file.folder)/\(file.name)")
        }
    }

    /// A type is named outside comments by a file of another folder only if that folder may use
    /// the folder declaring it. Names declared in two folders (`Kind`, nested) are not followed.
    @Test func foldersUseOnlyTheFoldersTheyMay() throws {
        let declaration = try Regex(#"(?m)^\s*(?:public |private |fileprivate )?(?:final )?(?:indirect )?"#
                                    + #"(?:struct|enum|class|protocol|typealias)\s+(\w+)"#)
        var declaredIn: [String: Set<String>] = [:]
        for file in RuntimeLayoutTests.files {
            for match in file.text.matches(of: declaration) {
                if let name = match.output[1].substring { declaredIn[String(name), default: []].insert(file.folder) }
            }
        }
        let owner = declaredIn.compactMapValues { $0.count == 1 ? $0.first : nil }
        #expect(owner["EnvironmentGraph"] == "Graph" && owner["Ledger"] == "Ledger")
        #expect(owner["Evaluator"] == "Embedding" && owner["InputError"] == "Support")
        var misplaced: [String] = []
        for file in RuntimeLayoutTests.files {
            let code = file.text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.range(of: "//").map { line[..<$0.lowerBound] } ?? line }.joined(separator: "\n")
            let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for word in words {
                guard let folder = owner[word], folder != file.folder,
                      !(RuntimeLayoutTests.mayUse[file.folder] ?? []).contains(folder) else { continue }
                misplaced.append("\(file.folder)/\(file.name) names `\(word)` of \(folder)/")
            }
        }
        #expect(misplaced.sorted() == [])
    }

    @Test func noFolderHoldsMoreThanTwelveFiles() {
        let counts = Dictionary(grouping: RuntimeLayoutTests.files, by: \.folder).mapValues(\.count)
        #expect(counts.filter { $0.value > 12 } == [:])
    }

    @Test func noFileOver500LinesNoLineOver120Columns() {
        for file in RuntimeLayoutTests.files {
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count <= 501, "\(file.folder)/\(file.name): \(lines.count) lines")
            for (i, line) in lines.enumerated() where line.count > 120 {
                Issue.record("\(file.folder)/\(file.name):\(i + 1): \(line.count) columns")
            }
        }
    }
}
