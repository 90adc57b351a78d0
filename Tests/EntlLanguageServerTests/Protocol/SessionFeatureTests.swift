import EntlLanguageServer
import EntlRuntime
import Testing

private let path = "/w/photos.entl"
private let uri = JSONValue.string("file:///w/photos.entl")

private func change(_ s: Session, _ r: JSONValue, _ text: String, version: Int) {
    s.notify("textDocument/didChange", .object([
        ("textDocument", .object([("uri", uri), ("version", .int(Int64(version)))])),
        ("contentChanges", .array([.object([("range", r), ("text", .string(text))])])),
    ]))
}

private func codeActions(_ s: Session, _ r: JSONValue) -> [JSONValue] {
    guard case .array(let list) = s.request("textDocument/codeAction", .object([
        ("textDocument", .object([("uri", uri)])), ("range", r), ("context", .object([("diagnostics", .array([]))])),
    ])) else { return [] }
    return list
}

private func labels(_ s: Session, _ line: Int, _ character: Int) -> [String] {
    guard case .array(let items)? = s.request("textDocument/completion", at(path, line, character))["items"] else { return [] }
    return items.compactMap { if case .string(let l)? = $0["label"] { l } else { nil } }
}

@Suite struct DiagnosticsTests {
    /// The warning `check` reports at 4:68 (columns in characters) is at UTF-16 column 68 on
    /// line 3: the camera emoji before it is one character and two UTF-16 units.
    @Test func publishesCheckDiagnosticsWithUTF16Columns() {
        let s = Session(files: [path: photos])
        s.open(path)
        let line = photos.split(separator: "\n", omittingEmptySubsequences: false)[3]
        let column = line[..<line.firstRange(of: "appstore")!.lowerBound].utf16.count
        #expect(column == 68)
        let published = s.publishedDiagnostics()
        #expect(published.keys.sorted() == ["file:///w/photos.entl"])
        #expect(published["file:///w/photos.entl"] == [.object([
            ("range", range(3, column, 3, column + 8)), ("severity", .int(2)), ("code", .string("W314")),
            ("source", .string("entlc")), ("message", .string("unknown store `appstore`")),
            ("relatedInformation", .array([.object([
                ("location", location(path, range(3, column, 3, column + 8))),
                ("message", .string("help: did you mean `app_store`? for a store of your own, put `// entl-allow W314` above the product")),
            ])])),
        ])])
    }

    @Test func typingAnErrorAndFixingItUpdatesTheDiagnostics() {
        let s = Session(files: [path: photos])
        s.open(path)
        _ = s.publishedDiagnostics()
        // `pro_annual` → `pro_anual` on line 10, typed as one incremental change.
        change(s, range(10, 38, 10, 39), "", version: 2)
        let error = s.publishedDiagnostics()["file:///w/photos.entl"]?.first { $0["code"] == .string("E201") }
        #expect(error?["range"] == range(10, 33, 10, 42))
        #expect(error?["message"] == .string("unknown product `pro_anual`"))
        #expect(error?["severity"] == .int(1))
        change(s, range(10, 38, 10, 38), "n", version: 3)
        let fixed = s.publishedDiagnostics()["file:///w/photos.entl"] ?? []
        #expect(fixed.map { $0["code"] } == [.string("W314")])
        // Nothing changed since: nothing is published again.
        change(s, range(0, 0, 0, 0), "", version: 4)
        #expect(s.publishedDiagnostics().isEmpty)
    }

    /// The rule set is the directory: a file on disk that uses a name the open buffer removes
    /// gets the error; the buffer, not the disk, is what counts.
    @Test func checksTheDirectoryWithOpenBuffersWinningOverDisk() {
        let other = "entitlement export_all = pro { grants export }\n"
        let s = Session(files: [path: photos, "/w/more.entl": other, "/w/sub/ignored.entl": "bad bad bad\n"])
        s.open(path, photos.replacingFirst("entitlement pro =", with: "entitlement premium ="))
        let published = s.publishedDiagnostics()
        let more = published["file:///w/more.entl"] ?? []
        #expect(more.map { $0["message"] } == [.string("unknown product or entitlement `pro`")])
        #expect(more.first?["range"] == range(0, 25, 0, 28))
        #expect(published["file:///w/sub/ignored.entl"] == nil)
    }

    /// A buffer that is not an `.entl` file is a rule set of its own, as `check` never reads it (a
    /// review: an open `notes.txt` declaring `f` gave the directory's `rules.entl` an E202).
    @Test func aBufferThatIsNotARuleFileStaysOutOfTheDirectorysRules() {
        let s = Session(files: [path: photos])
        s.open("/w/0notes.txt", "feature export: boolean\n")
        s.open(path, photos)
        let published = s.publishedDiagnostics()
        #expect((published["file:///w/photos.entl"] ?? []).allSatisfy { $0["code"] != .string("E202") })
    }

    @Test func aFileThatIsNotUTF8IsADiagnosticNotACrash() {
        var bytes = Array("feature x: boolean\n".utf8)
        bytes.append(0xFF)
        let s = Session(files: [path: photos])
        s.files.files["/w/latin1.entl"] = bytes
        s.open(path)
        let published = s.publishedDiagnostics()
        #expect(published["file:///w/latin1.entl"]?.map { $0["code"] } == [.string("E101")])
        #expect(s.request("textDocument/hover", at(path, 10, 13)) != .null)
    }

    @Test func closingTheLastFileWithdrawsTheDiagnostics() {
        let s = Session(files: [path: photos])
        s.open(path)
        _ = s.publishedDiagnostics()
        s.notify("textDocument/didClose", document(path))
        #expect(s.notifications.map { $0["params"]?["diagnostics"] } == [.array([])])
    }
}

@Suite struct NavigationTests {
    @Test func hoverShowsTheDeclarationDocsAndGrants() {
        let s = Session(files: [path: photos])
        s.open(path)
        let hover = s.request("textDocument/hover", at(path, 10, 13))
        #expect(hover["range"] == range(10, 12, 10, 15))
        #expect(hover["contents"]?["value"] == .string("""
            ```entl
            entitlement pro = pro_monthly or pro_annual
            ```

            (entitlement)

            Everything in Pro.

            - grants `export`
            - grants `api_calls 100 per month`
            """))
        let feature = s.request("textDocument/hover", at(path, 12, 12))
        #expect(feature["contents"]?["value"] == .string("""
            ```entl
            feature api_calls: metered
            ```

            (metered feature)

            - unit: "call" / "calls"
            - granted by entitlement `pro`: `api_calls 100 per month`
            """))
        let product = s.request("textDocument/hover", at(path, 10, 20))
        #expect(product["contents"]?["value"]?.compact.contains("- unlocks: entitlement `pro`") == true)
        #expect(s.request("textDocument/hover", at(path, 1, 0)) == .null)
    }

    @Test func definitionAndReferences() {
        let s = Session(files: [path: photos])
        s.open(path)
        #expect(s.request("textDocument/definition", at(path, 11, 10)) == .array([location(path, range(16, 8, 16, 14))]))
        #expect(s.request("textDocument/references", at(path, 12, 12)) == .array([
            location(path, range(12, 9, 12, 18)), location(path, range(18, 8, 18, 17)),
        ]))
        let withoutDeclaration = s.request("textDocument/references", .object([
            ("textDocument", .object([("uri", uri)])), ("position", .object([("line", .int(18)), ("character", .int(10))])),
            ("context", .object([("includeDeclaration", .bool(false))])),
        ]))
        #expect(withoutDeclaration == .array([location(path, range(12, 9, 12, 18))]))
    }

    @Test func renameEditsEveryUseAcrossFiles() {
        let s = Session(files: [path: photos, "/w/more.entl": "entitlement export_all = pro { grants export }\n"])
        s.open(path)
        #expect(s.request("textDocument/prepareRename", at(path, 11, 10)) == .object([
            ("range", range(11, 9, 11, 15)), ("placeholder", .string("export")),
        ]))
        let edit = s.request("textDocument/rename", .object([
            ("textDocument", .object([("uri", uri)])), ("position", .object([("line", .int(11)), ("character", .int(10))])),
            ("newName", .string("export_photos")),
        ]))
        let newText = JSONValue.string("export_photos")
        #expect(edit == .object([("changes", .object([
            ("file:///w/more.entl", .array([.object([("range", range(0, 38, 0, 44)), ("newText", newText)])])),
            ("file:///w/photos.entl", .array([
                .object([("range", range(11, 9, 11, 15)), ("newText", newText)]),
                .object([("range", range(16, 8, 16, 14)), ("newText", newText)]),
            ])),
        ]))]))
    }

    @Test func renameRefusesReservedWordsClashesAndNonNames() {
        let s = Session(files: [path: photos])
        s.open(path)
        func refusal(_ name: String) -> JSONValue? {
            s.response("textDocument/rename", .object([
                ("textDocument", .object([("uri", uri)])), ("position", .object([("line", .int(11)), ("character", .int(10))])),
                ("newName", .string(name)),
            ]))["error"]
        }
        #expect(refusal("everyone")?["message"] == .string("`everyone` is a reserved word and cannot name anything"))
        #expect(refusal("pro")?["message"] == .string("`pro` is already the name of an entitlement (photos.entl:11:13)"))
        #expect(refusal("2x")?["message"] == .string("`2x` is not a name: use letters, digits and `_`, starting with a letter or `_`"))
        #expect(refusal("pro")?["code"] == .int(-32803))
        let notAName = s.response("textDocument/prepareRename", at(path, 12, 22))
        #expect(notAName["error"]?["code"] == .int(-32803))
    }
}

@Suite struct CompletionTests {
    @Test func namesByKindWhereTheyAreValid() {
        let s = Session(files: [path: photos])
        s.open(path)
        #expect(labels(s, 11, 9) == ["export", "api_calls"])  // after `grants`
        #expect(labels(s, 10, 18) == ["pro_monthly", "pro_annual", "pro", "everyone", "not"])  // a constraint
        #expect(labels(s, 10, 30) == ["and", "or", "purchased"])  // after a name in a constraint
        #expect(labels(s, 12, 27) == ["minute", "hour", "day", "week", "month", "quarter", "half_year", "year"])
        #expect(labels(s, 5, 9) == ["week", "month", "quarter", "half_year", "year"])  // period
        #expect(labels(s, 5, 2) == ["name", "id", "period", "group", "duration", "grants"])  // a product's items
        #expect(labels(s, 0, 0) == ["app", "product", "feature", "credits", "entitlement", "environment", "test"])
    }

    @Test func whileTypingInAFileThatDoesNotParse() {
        let s = Session(files: [path: photos])
        s.open(path)
        change(s, range(21, 0, 21, 0), "product extra: \n", version: 2)
        #expect(labels(s, 21, 15) == ["non_consumable", "consumable", "subscription", "non_renewing"])
        change(s, range(21, 0, 22, 0), "product extra: consumable { id pl\n", version: 3)
        #expect(labels(s, 21, 33) == ["app_store", "mac_app_store", "play_store", "amazon", "stripe", "paddle", "web", "promotional"])
        change(s, range(21, 0, 22, 0), "test \"t\" {\n  expect \n", version: 4)
        #expect(labels(s, 22, 9) == ["pro", "export", "api_calls"])
        // Inside a string or a comment: nothing.
        #expect(labels(s, 0, 10) == [])
        #expect(labels(s, 2, 6) == [])
    }

    @Test func itemsCarryKindDetailAndDocs() {
        let s = Session(files: [path: photos])
        s.open(path)
        guard case .array(let items)? = s.request("textDocument/completion", at(path, 11, 9))["items"] else {
            Issue.record("no items")
            return
        }
        #expect(items.first == .object([
            ("label", .string("export")), ("kind", .int(10)), ("detail", .string("boolean feature")),
            ("documentation", .object([("kind", .string("markdown")), ("value", .string("Export photos."))])),
        ]))
    }
}

@Suite struct SymbolAndFormattingTests {
    @Test func documentSymbolsAreTheOutline() {
        let s = Session(files: [path: photos])
        s.open(path)
        guard case .array(let symbols) = s.request("textDocument/documentSymbol", document(path)) else {
            Issue.record("no symbols")
            return
        }
        #expect(symbols.map { $0["name"] } == ["app \"com.example.photos\"", "pro_monthly", "pro_annual", "pro", "export", "api_calls"].map { .string($0) })
        #expect(symbols.map { $0["kind"] } == [2, 5, 5, 11, 7, 7].map { .int($0) })
        #expect(symbols[2]["range"] == range(4, 0, 7, 1))
        #expect(symbols[2]["selectionRange"] == range(4, 8, 4, 18))
        #expect(symbols[3]["detail"] == .string("= pro_monthly or pro_annual"))
    }

    @Test func environmentBlocksNestTheirDeclarations() {
        let text = "environment test {\n  product sandbox: non_consumable\n}\n"
        let s = Session(files: ["/w/env.entl": text])
        s.open("/w/env.entl")
        let symbols = s.request("textDocument/documentSymbol", document("/w/env.entl"))
        #expect(symbols.compact == #"[{"name":"environment test","detail":"","kind":3,"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}},"selectionRange":{"start":{"line":0,"character":12},"end":{"line":0,"character":16}},"children":[{"name":"sandbox","detail":"non_consumable","kind":5,"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":33}},"selectionRange":{"start":{"line":1,"character":10},"end":{"line":1,"character":17}}}]}]"#)
    }

    @Test func workspaceSymbolsMatchInOrderIgnoringCase() {
        let s = Session(files: [path: photos, "/w/sub/credits.entl": "credits Tokens\n"])
        s.open(path)
        let found = s.request("workspace/symbol", .object([("query", .string("PrA"))]))
        #expect(found == .array([.object([
            ("name", .string("pro_annual")), ("kind", .int(5)), ("location", location(path, range(4, 8, 4, 18))),
            ("containerName", .string("photos.entl")),
        ])]))
        let fromDisk = s.request("workspace/symbol", .object([("query", .string("tok"))]))
        #expect(fromDisk == .array([.object([
            ("name", .string("Tokens")), ("kind", .int(23)), ("location", location("/w/sub/credits.entl", range(0, 8, 0, 14))),
            ("containerName", .string("credits.entl")),
        ])]))
    }

    @Test func formattingIsFmtAsOneEditAndRefusedOnSyntaxErrors() {
        let s = Session(files: [path: photos])
        s.open(path)
        guard case .array(let edits) = s.request("textDocument/formatting", document(path)) else {
            Issue.record("no edits")
            return
        }
        #expect(edits.count == 1)
        #expect(edits.first?["range"] == range(0, 0, 21, 0))
        #expect(edits.first?["newText"]?.compact.contains(#"product pro_monthly: subscription {\n  name \"Pro 📷\"\n  period month\n"#) == true)
        change(s, range(21, 0, 21, 0), "product }\n", version: 2)
        let refused = s.response("textDocument/formatting", document(path))
        #expect(refused["error"]?["code"] == .int(-32803))
        #expect(refused["error"]?["message"] == .string("cannot format photos.entl: it has syntax errors (E110 at 22:9: expected a product name, found `}`); fix them first"))
    }
}

@Suite struct CodeActionTests {
    @Test func didYouMeanAndEntlAllow() {
        let s = Session(files: [path: photos])
        s.open(path)
        // Warnings, and their actions, come with the debounced check that publishes them.
        #expect(codeActions(s, range(3, 70, 3, 70)).isEmpty)
        _ = s.publishedDiagnostics()
        let actions = codeActions(s, range(3, 70, 3, 70))
        #expect(actions.map { $0["title"] } == [.string("Replace `appstore` with `app_store`"), .string("Allow W314 in `pro_monthly` (// entl-allow)")])
        #expect(actions.first?["edit"] == .object([("changes", .object([
            ("file:///w/photos.entl", .array([.object([("range", range(3, 68, 3, 76)), ("newText", .string("app_store"))])])),
        ]))]))
        #expect(actions.first?["isPreferred"] == .bool(true))
        #expect(actions.last?["edit"] == .object([("changes", .object([
            ("file:///w/photos.entl", .array([.object([("range", range(2, 0, 2, 0)), ("newText", .string("// entl-allow W314\n"))])])),
        ]))]))
        // Applying the allow silences the warning.
        change(s, range(2, 0, 2, 0), "// entl-allow W314\n", version: 2)
        #expect(s.publishedDiagnostics()["file:///w/photos.entl"] == [])
        #expect(codeActions(s, range(4, 70, 4, 70)).isEmpty)
    }

    @Test func anUnknownNameIsReplacedByTheSuggestion() {
        let s = Session(files: [path: photos])
        s.open(path)
        change(s, range(10, 38, 10, 39), "", version: 2)
        let actions = codeActions(s, range(10, 35, 10, 35))
        #expect(actions.first?["title"] == .string("Replace `pro_anual` with `pro_annual`"))
        #expect(actions.first?["diagnostics"]?.compact == #"[{"range":{"start":{"line":10,"character":33},"end":{"line":10,"character":42}},"code":"E201","source":"entlc","message":"unknown product `pro_anual`"}]"#)
    }

    /// Dropping a product from an entitlement loses it for existing customers: the action
    /// rewrites the constraint as `entlc diff` suggests, with the instant of the edit.
    @Test func aLostEntitlementIsKeptForExistingCustomers() {
        let s = Session(files: [path: photos])
        s.open(path)
        change(s, range(10, 29, 10, 43), "", version: 2)  // `pro = pro_monthly or pro_annual` → `pro = pro_monthly`
        _ = s.publishedDiagnostics()
        let keep = codeActions(s, range(10, 13, 10, 13)).first { $0["diagnostics"]?.compact.contains("D401") == true }
        #expect(keep?["title"] == .string("To keep it for what was bought before 2026-11-23T00:00:00Z (D401)"))
        #expect(keep?["edit"] == .object([("changes", .object([
            ("file:///w/photos.entl", .array([.object([
                ("range", range(10, 18, 10, 29)),
                ("newText", .string(#"pro_monthly or pro_annual purchased before "2026-11-23T00:00:00Z""#)),
            ])])),
        ]))]))
        // Applied, nothing is lost any more.
        change(s, range(10, 18, 10, 29), #"pro_monthly or pro_annual purchased before "2026-11-23T00:00:00Z""#, version: 3)
        _ = s.publishedDiagnostics()
        #expect(codeActions(s, range(10, 13, 10, 13)).isEmpty)
    }
}

@Suite struct SemanticTokenTests {
    @Test func namesAreTokensOfTheirKind() {
        let s = Session(files: ["/w/t.entl": "product p: consumable\nentitlement e = p\n"])
        s.open("/w/t.entl")
        // keyword `product`, class p (declaration), keyword `entitlement`, interface e
        // (declaration), class p.
        #expect(s.request("textDocument/semanticTokens/full", document("/w/t.entl")) == .object([("data", .array([
            0, 0, 7, 0, 0,  0, 8, 1, 4, 1,
            1, 0, 11, 0, 0,  0, 12, 1, 5, 1,  0, 4, 1, 4, 0,
        ].map { .int($0) }))]))
    }
}

extension String {
    func replacingFirst(_ old: String, with new: String) -> String {
        guard let r = firstRange(of: old) else { return self }
        return String(self[..<r.lowerBound]) + new + String(self[r.upperBound...])
    }
}
