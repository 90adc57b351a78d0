import EntlCompiler
import EntlSupport
import EntlSyntax

/// One rule set as the editor features see it: every `.entl` file of a directory (open buffers
/// winning over disk), checked as far as a request needs, with the index of its names. The
/// features are its methods and take and give Swift values: byte offsets and source ranges in,
/// results with source ranges out. Nothing here knows of JSON or UTF-16; the protocol edge
/// (`Protocol/`) converts.
public struct Analysis: Sendable {
    /// How far a rule set was checked.
    public enum Depth: Int, Comparable, Sendable {
        /// Parsed and its names declared (`Compiler.declare`): enough to resolve names.
        case names
        /// Every check but the lints: the errors of `entlc check`.
        case checked
        /// Everything `entlc check` reports, warnings included.
        case linted

        public static func < (a: Depth, b: Depth) -> Bool { a.rawValue < b.rawValue }
    }

    public let checked: CheckedRuleSet
    public let index: NameIndex
    public let depth: Depth

    public init(sources: [SourceFile], depth: Depth) {
        checked = switch depth {
        case .names: Compiler.declare(sources)
        case .checked: Compiler.check(sources, lint: false)
        case .linted: Compiler.check(sources)
        }
        self.depth = depth
        index = NameIndex(checked)
    }

    /// The name under a byte offset of a file and the declarations it resolves to; nil when
    /// there is no name there, or it resolves to nothing.
    func resolve(in file: String, at offset: Int) -> (occurrence: Occurrence, symbols: [Symbol])? {
        guard let o = index.occurrence(in: file, at: offset) else { return nil }
        let symbols = index.symbols(of: o)
        return symbols.isEmpty ? nil : (o, symbols)
    }
}

/// A place in a rule set: a file and a range of it.
public struct Location: Equatable, Sendable {
    public var file: String
    public var range: SourceRange

    public init(file: String, range: SourceRange) { (self.file, self.range) = (file, range) }
}

/// Replace the bytes `range` of `file` with `newText`.
public struct TextEdit: Equatable, Sendable {
    public var file: String
    public var range: Range<Int>
    public var newText: String

    public init(file: String, range: Range<Int>, newText: String) {
        (self.file, self.range, self.newText) = (file, range, newText)
    }
}

/// What a name stands for, as an editor shows it.
public enum NameKind: Int, Sendable {
    case product, entitlement, feature, credits

    init(_ kind: Symbol.Kind) {
        switch kind {
        case .product: self = .product
        case .entitlement: self = .entitlement
        case .feature: self = .feature
        case .credits: self = .credits
        }
    }
}

/// A request that is valid but cannot be carried out (rename to a taken name, format a file with
/// syntax errors): the message says why.
public struct FeatureError: Error, Equatable, Sendable {
    public var message: String

    public init(_ message: String) { self.message = message }
}

/// A declaration's `///` comment as Markdown (the space after `///` dropped).
func docComment(_ docs: [String]) -> String {
    // A line's control characters escaped, as the source would write them: raw, an ESC or a NUL
    // reached the editor's hover (a review).
    docs.map { ($0.hasPrefix(" ") ? String($0.dropFirst()) : $0).withControlsEscaped }.joined(separator: "\n")
}

/// The last component of a path.
func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}
