import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `editors/vscode/` cannot be built here (the npm registry is out of reach), so its parts are
/// checked against each other: what package.json names exists, the grammar and the language
/// agree on scope and file type, the settings it declares are the ones the client reads.
@Suite struct EditorExtensionTests {
    private let root = "editors/vscode/"

    private func json(_ path: String) throws -> JSONValue { try JSONParser.parse(try readRepoFile(root + path)) }

    private func string(_ v: JSONValue?) -> String? { if case .string(let s)? = v { s } else { nil } }

    private func strings(_ v: JSONValue?) -> [String] {
        if case .array(let items)? = v { items.compactMap(string) } else { [] }
    }

    private func first(_ v: JSONValue?) -> JSONValue? { if case .array(let items)? = v { items.first } else { nil } }

    private func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: repoPath(root + path))
    }

    @Test func languageGrammarAndConfigurationAreConsistent() throws {
        let package = try json("package.json")
        let language = try #require(first(package["contributes"]?["languages"]))
        let grammarEntry = try #require(first(package["contributes"]?["grammars"]))
        #expect(string(language["id"]) == "entl")
        #expect(strings(language["extensions"]) == [".entl"])
        #expect(string(grammarEntry["language"]) == string(language["id"]))
        #expect(strings(package["activationEvents"]) == ["onLanguage:entl"])

        let grammarPath = try #require(string(grammarEntry["path"]))
        #expect(exists(grammarPath))
        let grammar = try json(grammarPath)
        #expect(string(grammar["scopeName"]) == string(grammarEntry["scopeName"]))
        #expect(strings(grammar["fileTypes"]).map { "." + $0 } == strings(language["extensions"]))

        let configurationPath = try #require(string(language["configuration"]))
        #expect(exists(configurationPath))
        let configuration = try json(configurationPath)
        #expect(string(configuration["comments"]?["lineComment"]) == "//")
        #expect(strings(configuration["comments"]?["blockComment"]) == ["/*", "*/"])
        // The grammar colours both comment forms the configuration toggles.
        let grammarText = try readRepoFile(root + grammarPath)
        #expect(grammarText.contains(#""match": "//"#) || grammarText.contains(#""begin": "//"#))
        #expect(grammarText.contains(#"/\\*"#))
        // Every bracket pair closes automatically; every pattern is a valid regular expression.
        let closing = Set(try #require(configuration["autoClosingPairs"]).arrayItems.compactMap { string($0["open"]) })
        for pair in try #require(configuration["brackets"]).arrayItems { #expect(closing.contains(strings(pair)[0])) }
        for pattern in [configuration["wordPattern"], configuration["folding"]?["markers"]?["start"],
                        configuration["folding"]?["markers"]?["end"], configuration["indentationRules"]?["increaseIndentPattern"],
                        configuration["indentationRules"]?["decreaseIndentPattern"]] {
            let text = try #require(string(pattern))
            #expect(throws: Never.self) { _ = try Regex(text) }
        }
    }

    @Test func theClientEntryPointStartsEntlcLspWithTheDeclaredSettings() throws {
        let package = try json("package.json")
        let tsconfig = try json("tsconfig.json")
        // main ./out/extension.js is compiled from src/extension.ts.
        let main = try #require(string(package["main"]))
        let outDir = try #require(string(tsconfig["compilerOptions"]?["outDir"]))
        let rootDir = try #require(string(tsconfig["compilerOptions"]?["rootDir"]))
        #expect(main == "./\(outDir)/extension.js")
        let source = try readRepoFile(root + rootDir + "/extension.ts")
        #expect(package["dependencies"]?["vscode-languageclient"] != nil)
        #expect(source.contains(#"from "vscode-languageclient/node""#))
        #expect(source.contains(#"args: ["lsp"]"#))
        // `entl.server.path` is read as section `entl`, key `server.path`; `entl.trace.server` is
        // the client library's own setting for a client whose id is `entl`.
        guard case .object(let properties)? = package["contributes"]?["configuration"]?["properties"] else {
            Issue.record("no settings")
            return
        }
        #expect(properties.map(\.key) == ["entl.server.path", "entl.trace.server"])
        #expect(source.contains(#"getConfiguration("entl").get<string>("server.path", "entlc")"#))
        #expect(string(properties[0].value["default"]) == "entlc")
        #expect(source.contains(#"new LanguageClient("entl","#))
        #expect(string(package["scripts"]?["compile"]) == "tsc -p ./")
    }
}

extension JSONValue {
    fileprivate var arrayItems: [JSONValue] { if case .array(let items) = self { items } else { [] } }
}
