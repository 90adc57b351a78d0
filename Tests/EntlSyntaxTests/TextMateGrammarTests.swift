import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// `editors/vscode/syntaxes/entl.tmLanguage.json` is valid JSON and highlights every reserved word
/// and the contextual words of grants and test items.
@Suite struct TextMateGrammarTests {
    @Test func isValidJSONAndNamesEveryReservedWord() throws {
        let grammar = try JSONParser.parse(try readRepoFile("editors/vscode/syntaxes/entl.tmLanguage.json"))
        #expect(grammar["scopeName"] == .string("source.entl"))
        #expect(grammar["fileTypes"] == .array([.string("entl")]))
        var matches: [String] = []
        func collect(_ v: JSONValue) {
            switch v {
            case .object(let members):
                for (k, value) in members {
                    if k == "match", case .string(let m) = value { matches.append(m) }
                    collect(value)
                }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(grammar)
        // Each reserved word is an alternative of some `\b(…|word|…)\b` pattern.
        for keyword in Keyword.allCases {
            let named = matches.contains { m in
                ["(", "|"].contains { m.contains($0 + keyword.rawValue + "|") || m.contains($0 + keyword.rawValue + ")") }
            }
            #expect(named, "`\(keyword.rawValue)` is not highlighted")
        }
        // So is every contextual word that starts an item or a clause of a grant or a test item.
        let contextual = Parser.grantClauseWords + Parser.testItemWords + ["after", "up", "to", "from", "until", "via"]
        for word in contextual {
            let named = matches.contains { m in
                ["(", "|"].contains { m.contains($0 + word + "|") || m.contains($0 + word + ")") }
            }
            #expect(named, "`\(word)` is not highlighted")
        }
        // Every `include` points into the repository.
        var includes: [String] = []
        func includesOf(_ v: JSONValue) {
            switch v {
            case .object(let members):
                for (k, value) in members {
                    if k == "include", case .string(let i) = value { includes.append(i) }
                    includesOf(value)
                }
            case .array(let items): items.forEach(includesOf)
            default: break
            }
        }
        includesOf(grammar)
        for i in includes {
            #expect(grammar["repository"]?[String(i.dropFirst())] != nil, "dangling include \(i)")
        }
    }
}
