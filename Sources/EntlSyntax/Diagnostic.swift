/// How bad a diagnostic is.
public enum Severity: String, Sendable, Hashable, Comparable {
    case error
    case warning
    /// Information that needs no action (`entlc diff`'s non-breaking changes).
    case note

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        }
    }
}

/// A stable diagnostic code: `E1xx` syntax, `E2xx` names and kinds, `W3xx` lints, `D1xx`/`D4xx`
/// what `entlc diff` finds.
///
/// Codes never change meaning once released; `entlc explain CODE` prints the long explanation.
public struct DiagnosticCode: Hashable, Sendable, CustomStringConvertible, Comparable {
    public let id: String
    /// A short title (used by SARIF's `shortDescription` and `entlc explain`).
    public let title: String

    /// The severity a diagnostic of this code has unless `--deny` raises it.
    public let defaultSeverity: Severity

    /// `severity` by default from the prefix: `W` a warning, `D1` a note, anything else an error
    /// (`W315`, the linter's note that an analysis was skipped, says `.note`).
    public init(_ id: String, _ title: String, severity: Severity? = nil) {
        self.id = id
        self.title = title
        defaultSeverity = severity ?? (id.hasPrefix("W") ? .warning : id.hasPrefix("D1") ? .note : .error)
    }

    public var description: String { id }

    public static func == (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public static func < (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.id < rhs.id }
}

/// A secondary message pointing somewhere else (e.g. the first declaration of a duplicate).
public struct DiagnosticNote: Hashable, Sendable {
    public var message: String
    public var file: String
    public var range: SourceRange

    public init(message: String, file: String, range: SourceRange) {
        (self.message, self.file, self.range) = (message, file, range)
    }
}

/// One problem found in a rule set: message + stable code + severity + primary range + notes + help.
///
/// Messages are lowercase, one line, without a final period, with user text in backticks.
public struct Diagnostic: Hashable, Sendable {
    public var severity: Severity
    public var code: DiagnosticCode
    public var message: String
    public var file: String
    /// The primary range: the offending token or the smallest range that shows the problem.
    public var range: SourceRange
    /// A short text printed after the carets.
    public var label: String?
    public var help: String?
    public var notes: [DiagnosticNote]

    public init(
        _ code: DiagnosticCode, _ message: String, file: String, range: SourceRange,
        severity: Severity? = nil, label: String? = nil, help: String? = nil,
        notes: [DiagnosticNote] = []
    ) {
        (self.severity, self.code, self.message) = (severity ?? code.defaultSeverity, code, message)
        (self.file, self.range) = (file, range)
        (self.label, self.help, self.notes) = (label, help, notes)
    }
}

extension Array where Element == Diagnostic {
    public var errorCount: Int { count(where: { $0.severity == .error }) }
    public var warningCount: Int { count(where: { $0.severity == .warning }) }
    public var hasErrors: Bool { contains(where: { $0.severity == .error }) }

    /// Diagnostics in file order, then position, then code (the order every output uses).
    public func sortedForOutput(fileOrder: [String]) -> [Diagnostic] {
        var rank: [String: Int] = [:]
        for (i, f) in fileOrder.enumerated() where rank[f] == nil { rank[f] = i }
        return enumerated().sorted { a, b in
            let (x, y) = (a.element, b.element)
            let (rx, ry) = (rank[x.file] ?? Int.max, rank[y.file] ?? Int.max)
            if rx != ry { return rx < ry }
            if x.file != y.file { return x.file < y.file }
            if x.range.start.offset != y.range.start.offset { return x.range.start.offset < y.range.start.offset }
            if x.code != y.code { return x.code < y.code }
            return a.offset < b.offset
        }.map(\.element)
    }
}
