import EntlSyntax

/// The long explanation of one diagnostic code: what it means, a small failing example, and the
/// fix. `entlc explain CODE` prints it; SARIF output carries it as the rule's full description.
public struct CodeExplanation: Sendable {
    public let code: DiagnosticCode
    public let summary: String
    /// A rule set that produces the code (nil where no text can: invalid UTF-8, huge files).
    /// For a `D` code, the NEW version of a change.
    public let example: String?
    /// For a `D` code, the OLD version that `example` changes.
    public let before: String?
    /// The example, fixed (nil for a finding that needs no fix).
    public let fix: String?

    init(_ code: DiagnosticCode, _ summary: String, before: String? = nil, example: String?, fix: String?) {
        (self.code, self.summary, self.before, self.example, self.fix) = (code, summary, before, example, fix)
    }

    /// The text `entlc explain` prints.
    public var text: String {
        var out = "\(code.id): \(code.title)\n\n\(summary)\n"
        if let before { out += "\nBefore:\n\n" + indent(before) }
        if let example { out += (before == nil ? "\nExample:\n\n" : "\nAfter:\n\n") + indent(example) }
        if let fix { out += "\nFix:\n\n" + indent(fix) }
        return out
    }

    private func indent(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }
            .joined(separator: "\n") + "\n"
    }
}

/// Every code the compiler can emit, with its explanation.
public enum DiagnosticCatalog {
    public static var codes: [DiagnosticCode] {
        (DiagnosticCode.syntaxCodes + DiagnosticCode.checkerCodes + Linter.codes + DiagnosticCode.diffCodes).sorted()
    }

    public static func explanation(_ id: String) -> CodeExplanation? {
        byID[id.uppercased()]
    }

    public static let all: [CodeExplanation] = explanations.sorted { $0.code < $1.code }

    private static let byID: [String: CodeExplanation] = Dictionary(explanations.map { ($0.code.id, $0) },
                                                                     uniquingKeysWith: { a, _ in a })

    private static let explanations: [CodeExplanation] = syntax + names + lints + diff
}
