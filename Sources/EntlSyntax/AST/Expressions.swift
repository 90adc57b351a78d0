/// A purchase constraint: products owned, entitlements active, consumables held.
///
/// The parser flattens chains (`a or b or c` is one `.or` with three terms), so a nested `.or`
/// directly under `.or` (or `.and` under `.and`) can only come from parentheses in the source.
public indirect enum Expression: Hashable, Sendable {
    /// A product (owned now) or an entitlement (active now).
    case reference(Identifier)
    /// `everyone`: true for every customer (the free tier).
    case everyone(Located<Keyword>)
    /// `P purchased before "T"` / `P purchased since "T"`: P owned through a purchase first
    /// bought before T / at or after T (grandfathering).
    case purchased(Identifier, PurchaseDate)
    /// `NAME >= N`: at least N units of a consumable held.
    case atLeast(Identifier, IntegerLiteral)
    /// `not x`; the range spans from `not` to the end of the operand.
    case not(Expression, Located<Keyword>)
    case and([Expression])
    case or([Expression])
    /// Text that did not parse as an expression (already reported).
    case error(Located<String>)

    public var range: SourceRange {
        switch self {
        case .reference(let id): id.range
        case .everyone(let w): w.range
        case .purchased(let id, let date): id.range.through(date.range)
        case .atLeast(let id, let n): id.range.through(n.range)
        case .not(let operand, let keyword): keyword.range.through(operand.range)
        case .and(let terms), .or(let terms): terms[0].range.through(terms[terms.count - 1].range)
        case .error(let e): e.range
        }
    }

    /// Every name the expression refers to, in source order.
    public var references: [Identifier] {
        var out: [Identifier] = []
        collectReferences(into: &out)
        return out
    }

    private func collectReferences(into out: inout [Identifier]) {
        switch self {
        case .reference(let id), .atLeast(let id, _), .purchased(let id, _): out.append(id)
        case .not(let e, _): e.collectReferences(into: &out)
        case .and(let terms), .or(let terms): for t in terms { t.collectReferences(into: &out) }
        case .everyone, .error: break
        }
    }

    /// Whether `everyone` appears in the expression.
    public var mentionsEveryone: Bool {
        switch self {
        case .everyone: true
        case .not(let e, _): e.mentionsEveryone
        case .and(let terms), .or(let terms): terms.contains { $0.mentionsEveryone }
        case .reference, .atLeast, .purchased, .error: false
        }
    }
}

/// `purchased before "T"` / `purchased since "T"` after a product name.
public struct PurchaseDate: Hashable, Sendable {
    public enum Relation: String, Hashable, Sendable {
        /// `purchased_at < T`
        case before
        /// `purchased_at >= T`
        case since
    }

    public var relation: Located<Relation>
    public var instant: StringLiteral
    /// From `purchased` to the end of the instant.
    @IgnoredInEquality public var range: SourceRange

    public init(relation: Located<Relation>, instant: StringLiteral, range: SourceRange) {
        self.relation = relation
        self.instant = instant
        self.range = range
    }
}

extension Expression: CustomStringConvertible {
    /// The constraint on one line as `fmt` writes it, with the parentheses its tree needs (for
    /// messages and suggested rewrites).
    public var description: String {
        switch self {
        case .reference(let id): id.name
        case .everyone: "everyone"
        case .purchased(let id, let date):
            "\(id.name) purchased \(date.relation.value.rawValue) \"\(date.instant.value)\""
        case .atLeast(let id, let n): "\(id.name) >= \(n.value)"
        case .not(let inner, _):
            switch inner {
            case .and, .or: "not (\(inner))"
            default: "not \(inner)"
            }
        case .and(let terms), .or(let terms):
            terms.map { t in
                let parenthesize = switch t {
                case .and: isAndExpression
                case .or: true
                default: false
                }
                return parenthesize ? "(\(t))" : t.description
            }.joined(separator: isAndExpression ? " and " : " or ")
        case .error(let e): e.value
        }
    }

    private var isAndExpression: Bool { if case .and = self { true } else { false } }
}
