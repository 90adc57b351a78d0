import EntlCompiler
import EntlRuntime
import EntlSyntax

/// A rule set as the server holds it: its analysis, and the lines of each file to convert
/// between byte offsets and LSP positions.
struct RuleSet {
    let analysis: Analysis
    /// Per path, the text the diagnostics and ranges refer to.
    let lines: [String: TextLines]

    init(sources: [SourceFile], depth: Analysis.Depth) {
        analysis = Analysis(sources: sources, depth: depth)
        var lines: [String: TextLines] = [:]
        for s in sources { lines[s.path] = TextLines(s.bytes) }
        self.lines = lines
    }

    /// A range of a file as LSP shows it (`null` for a file not in the rule set).
    func range(_ file: String, _ range: SourceRange) -> JSONValue {
        lines[file]?.range(range) ?? .null
    }
}

/// Document sync, the rule set of each document, and publishing diagnostics.
extension LanguageServer {
    // MARK: - Documents

    func didOpen(_ params: JSONValue) throws(ResponseError) {
        guard let item = params["textDocument"], let uri = item["uri"]?.stringValue,
              let text = item["text"]?.stringValue
        else { throw ResponseError(.invalidParams, "didOpen without a text document") }
        let bytes = Array(text.utf8)
        let path = DocumentURI.path(uri) ?? uri
        documents[uri] = OpenDocument(uri: uri, path: path, version: item["version"]?.intValue, bytes: bytes,
                                      openedBytes: bytes)
        touch(ruleSetKey(uri))
    }

    func didChange(_ params: JSONValue) throws(ResponseError) {
        guard let uri = params["textDocument", "uri"]?.stringValue, var document = documents[uri] else {
            throw ResponseError(.invalidParams, "didChange for a document that is not open")
        }
        try document.apply(params["contentChanges"]?.arrayValue ?? [])
        document.version = params["textDocument", "version"]?.intValue
        documents[uri] = document
        touch(ruleSetKey(uri))
    }

    func didClose(_ params: JSONValue) throws(ResponseError) {
        guard let uri = params["textDocument", "uri"]?.stringValue, documents.removeValue(forKey: uri) != nil else {
            throw ResponseError(.invalidParams, "didClose for a document that is not open")
        }
        let key = ruleSetKey(uri)
        if documents.keys.contains(where: { ruleSetKey($0) == key }) {
            touch(key)
        } else {
            // The last open file of the rule set: forget it and withdraw its diagnostics.
            for (uri, diagnostics) in published[key] ?? [:] where diagnostics != .array([]) {
                notify("textDocument/publishDiagnostics", .object(["uri": .string(uri), "diagnostics": .array([])]))
            }
            published[key] = nil
            ruleSets[key] = nil
            changes[key] = nil
            stale.remove(key)
            unpublished.remove(key)
        }
    }

    /// Files on disk may have changed: every rule set is read again.
    func rereadEveryRuleSet() {
        stale.formUnion(ruleSets.keys)
        unpublished.formUnion(ruleSets.keys)
    }

    private func touch(_ key: String) {
        stale.insert(key)
        unpublished.insert(key)
    }

    /// A file's rule set: its directory, or the document alone when it is not a file, or not an
    /// `.entl` one (a `notes.txt` buffer had been merged into its directory's rules, as `check`
    /// never does).
    func ruleSetKey(_ uri: String) -> String {
        DocumentURI.path(uri).flatMap { $0.hasSuffix(".entl") ? DocumentURI.directory(of: $0) : nil } ?? uri
    }

    /// The URI to publish for a path: the client's own spelling for an open document.
    func uri(forPath path: String) -> String {
        documents.values.first { $0.path == path }?.uri ?? (path.hasPrefix("/") ? DocumentURI.uri(path) : path)
    }

    /// The sources of a rule set: open buffers first-class, the other files from disk.
    func sources(of key: String, baseline: Bool = false) -> [SourceFile] {
        var texts: [String: [UInt8]] = [:]
        if key.hasPrefix("/") {
            for path in files.ruleFiles(inDirectory: key) {
                if let bytes = files.contents(of: path) { texts[path] = bytes }
            }
        }
        for d in documents.values where ruleSetKey(d.uri) == key { texts[d.path] = baseline ? d.openedBytes : d.bytes }
        return texts.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map {
            SourceFile(path: $0, bytes: texts[$0]!)
        }
    }

    /// The rule set of a key checked at least to `depth`, checked again first when stale.
    func currentRuleSet(_ key: String, depth: Analysis.Depth = .names) -> RuleSet {
        if let r = ruleSets[key], !stale.contains(key), r.analysis.depth >= depth { return r }
        let r = RuleSet(sources: sources(of: key), depth: depth)
        ruleSets[key] = r
        changes[key] = nil
        stale.remove(key)
        return r
    }

    // MARK: - Diagnostics

    /// Checks every stale rule set and publishes what changed since the last publication.
    public func publishPendingDiagnostics() {
        for key in unpublished.sorted() {
            let ruleSet = currentRuleSet(key, depth: .linted)
            let checked = ruleSet.analysis.checked
            var byFile: [String: [JSONValue]] = [:]
            for s in checked.sources { byFile[s.path] = [] }
            for d in checked.sortedDiagnostics { byFile[d.file, default: []].append(diagnostic(d, ruleSet)) }
            var current: [String: JSONValue] = [:]
            for (path, list) in byFile.sorted(by: { $0.key < $1.key }) {
                let uri = uri(forPath: path)
                let value = JSONValue.array(list)
                current[uri] = value
                // Published when it changed; a closed file without diagnostics is left alone.
                let before = published[key]?[uri]
                if before == value || (before == nil && list.isEmpty && documents[uri] == nil) { continue }
                var params: [(key: String, value: JSONValue)] = [("uri", .string(uri))]
                if let version = documents[uri]?.version { params.append(("version", .int(version))) }
                params.append(("diagnostics", value))
                notify("textDocument/publishDiagnostics", .object(params))
            }
            for (uri, value) in published[key] ?? [:] where current[uri] == nil && value != .array([]) {
                notify("textDocument/publishDiagnostics", .object(["uri": .string(uri), "diagnostics": .array([])]))
            }
            published[key] = current
            // The "keep existing customers" actions: what `entlc diff` finds between the rule set
            // as opened and as edited (kept until the rule set changes).
            let since = Instant(seconds: now().seconds, nanoseconds: 0)
            changes[key] = currentRuleSet(key, depth: .checked).analysis
                .changesToKeep(from: sources(of: key, baseline: true), since: since)
        }
        unpublished.removeAll()
    }
}
