import EntlSyntax

/// One declaration of the rule set, with the file it is in and the environment it exists in.
/// Environment blocks are flattened away: their declarations appear here in source order.
public struct DeclarationSite: Sendable {
    public let file: String
    /// Never `.environment`.
    public let declaration: Declaration
    /// `nil`: declared outside any environment block, so it exists in both.
    public let environment: EnvironmentName?

    public func isVisible(in env: EnvironmentName) -> Bool { environment == nil || environment == env }
}

extension Collection where Element == DeclarationSite {
    /// Whether every environment sees every declaration (none is in an environment block): then
    /// the environments differ in nothing, and are checked and lowered once.
    var sameInEveryEnvironment: Bool { allSatisfy { $0.environment == nil } }
}

/// A declared name.
public struct Symbol: Sendable {
    public enum Kind: Sendable, Equatable {
        case product(ProductKind?)
        case feature(FeatureKind?, Usage)
        case credits
        case entitlement

        /// "product", "feature", "credit system", "entitlement".
        public var noun: String {
            switch self {
            case .product: "product"
            case .feature: "feature"
            case .credits: "credit system"
            case .entitlement: "entitlement"
            }
        }

        /// The most specific description: "consumable", "metered feature", "boolean feature".
        public var detail: String {
            switch self {
            case .product(let k?): k == .nonConsumable ? "non-consumable product"
                : k == .nonRenewing ? "non-renewing product" : k.rawValue
            case .feature(.boolean?, _): "boolean feature"
            case .feature(.metered?, .continuous): "continuous metered feature"
            case .feature(.metered?, .singleUse): "metered feature"
            default: noun
            }
        }

        public var isProduct: Bool { if case .product = self { true } else { false } }
        /// A feature or a credit system: what `grants` may name.
        public var grantable: Bool {
            switch self {
            case .feature, .credits: true
            case .product, .entitlement: false
            }
        }

        /// A metered feature or a credit system: something with a balance.
        public var isMetered: Bool {
            switch self {
            case .feature(.metered?, _), .credits: true
            default: false
            }
        }
    }

    public let name: String
    public let kind: Kind
    /// Index into `CheckedRuleSet.declarations`.
    public let site: Int
    public let file: String
    /// The range of the declared name.
    public let range: SourceRange
}

/// The names of one environment: declarations outside environment blocks plus that environment's
/// block(s). First declaration wins; later ones are duplicates (reported).
public struct SymbolTable: Sendable {
    public let environment: EnvironmentName
    public private(set) var symbols: [String: Symbol] = [:]
    /// Names in declaration order.
    public private(set) var order: [String] = []
    /// The symbols in declaration order.
    public private(set) var ordered: [Symbol] = []

    init(environment: EnvironmentName) {
        self.environment = environment
    }

    public subscript(name: String) -> Symbol? { symbols[name] }

    /// Adds a symbol; returns the earlier one when the name is taken.
    mutating func insert(_ symbol: Symbol) -> Symbol? {
        if let existing = symbols[symbol.name] { return existing }
        symbols[symbol.name] = symbol
        order.append(symbol.name)
        ordered.append(symbol)
        return nil
    }

    /// Names of symbols whose kind passes `filter`, in declaration order.
    public func names(where filter: (Symbol.Kind) -> Bool) -> [String] {
        order.filter { filter(symbols[$0]!.kind) }
    }
}

/// A rule set after parsing and checking: the trees, the comments, the flattened declarations,
/// one symbol table per environment, the model, and every diagnostic.
public struct CheckedRuleSet: Sendable {
    public var sources: [SourceFile]
    public var files: [RuleFile]
    /// Comments per file (same order as `files`), for `fmt`.
    public var comments: [[Comment]]
    public var declarations: [DeclarationSite]
    public var tables: [EnvironmentName: SymbolTable]
    /// The resolved model: what the declarations say, typed, and what each name means.
    public var model: RuleModel
    public var diagnostics: [Diagnostic]

    public var hasErrors: Bool { diagnostics.hasErrors }

    /// Diagnostics in output order (file order, then position).
    public var sortedDiagnostics: [Diagnostic] { diagnostics.sortedForOutput(fileOrder: sources.map(\.path)) }
}
