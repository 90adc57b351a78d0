import EntlSyntax

/// The resolved rule set between the syntax trees and every client: what each declaration says,
/// typed (a product's period, store ids and grants; an entitlement's constraint; a feature's
/// kind, usage, event and unit; a credit system's conversions), and per environment what every
/// name means. Built once by the checker (`CheckedRuleSet.model`); lowering, `diff`, `gen`, the
/// lints and the language server read it, so none of them walks a block's items again
/// (rust-analyzer's `hir` between syntax and the IDE features).
///
/// It is built for every rule set, errors and all (an editor hovers over a file with a typo): a
/// missing kind is nil, a name that resolves nowhere is nil, and an item given twice (already
/// `E207`) keeps the one written last, as the symbol tables do.
public struct RuleModel: Sendable {
    /// One entry per declaration of `CheckedRuleSet.declarations`, at the same index
    /// (`Symbol.site`, `Site.index`): environment blocks flattened, duplicates kept.
    public let declarations: [Declaration]
    /// The first `app` declaration's id.
    public let app: String?
    public let live: EnvironmentModel
    public let test: EnvironmentModel

    public subscript(environment: EnvironmentName) -> EnvironmentModel {
        environment == .live ? live : test
    }

    /// Whether both environments see the same declarations (none sits in an environment block):
    /// then they agree on everything, and are lowered once.
    public let sameInEveryEnvironment: Bool

    /// The `test` blocks, in rule-set order.
    public var tests: [Test] {
        declarations.compactMap { if case .test(let t) = $0 { t } else { nil } }
    }

    /// One declaration, as the model sees it.
    public enum Declaration: Sendable {
        case app(App)
        case product(Product)
        case entitlement(Entitlement)
        /// A feature or a credit system (`Feature.isCreditSystem`).
        case feature(Feature)
        case test(Test)

        /// The declaration, whatever its kind.
        public var declared: any Declared {
            switch self {
            case .app(let a): a
            case .product(let p): p
            case .entitlement(let e): e
            case .feature(let f): f
            case .test(let t): t
            }
        }

        public var site: Site { declared.site }

        /// What a name declared here means, for the declarations that declare one.
        public var named: (any Named)? {
            switch self {
            case .product(let p): p
            case .entitlement(let e): e
            case .feature(let f): f
            case .app, .test: nil
            }
        }
    }

    /// Where a declaration is: its index among the rule set's declarations, its file, the
    /// environment block it sits in (nil: both environments see it) and its whole range.
    public struct Site: Sendable, Equatable {
        public let index: Int
        public let file: String
        public let environment: EnvironmentName?
        public let range: SourceRange
    }
}

/// A declaration of the model: it knows where it is.
public protocol Declared: Sendable {
    var site: RuleModel.Site { get }
}

/// A declaration that declares a name: the name, its `///` comment, and what kind of name.
public protocol Named: Declared {
    var name: Identifier { get }
    var docs: [String] { get }
    var symbolKind: Symbol.Kind { get }
}

/// What a name stands for in one environment: a product, an entitlement, or a feature (a credit
/// system is one), each by its index in that environment's list, which is its index in the
/// environment's rule graph too.
public enum Reference: Hashable, Sendable {
    case product(Int)
    case entitlement(Int)
    case feature(Int)
}

/// One environment's view of the rule set: the declarations outside environment blocks plus
/// that environment's, each name once (the first declaration of a name wins; later ones are
/// `E202`), and every name resolved.
public struct EnvironmentModel: Sendable {
    public let environment: EnvironmentName
    /// The names, in declaration order, with their kinds and where they are declared.
    public let symbols: SymbolTable
    /// The products, in declaration order.
    public let products: [RuleModel.Product]
    /// The entitlements, in declaration order.
    public let entitlements: [RuleModel.Entitlement]
    /// The features and credit systems, in declaration order: one index space, as in the graph.
    public let features: [RuleModel.Feature]
    /// Every grant of a product or entitlement of this environment, in declaration order, with
    /// the feature it grants resolved.
    public let grants: [ResolvedGrant]
    /// Per declaration of the rule set, its index in this environment's list of its kind (-1: none).
    private let indexBySite: [Int32]

    init(environment: EnvironmentName, symbols: SymbolTable, declarations: [RuleModel.Declaration]) {
        self.environment = environment
        self.symbols = symbols
        var products: [RuleModel.Product] = [], entitlements: [RuleModel.Entitlement] = []
        var features: [RuleModel.Feature] = []
        var indexBySite = [Int32](repeating: -1, count: declarations.count)
        for symbol in symbols.ordered {
            let site = symbol.site
            switch declarations[site] {
            case .product(let p):
                indexBySite[site] = Int32(products.count)
                products.append(p)
            case .entitlement(let e):
                indexBySite[site] = Int32(entitlements.count)
                entitlements.append(e)
            case .feature(let f):
                indexBySite[site] = Int32(features.count)
                features.append(f)
            case .app, .test:
                break
            }
        }
        (self.products, self.entitlements, self.features) = (products, entitlements, features)
        self.indexBySite = indexBySite
        var grants: [ResolvedGrant] = []
        for symbol in symbols.ordered {
            let site = symbol.site
            let (source, written): (ResolvedGrant.Source, [Grant])
            switch declarations[site] {
            case .product(let p): (source, written) = (.product(Int(indexBySite[site])), p.grants)
            case .entitlement(let e): (source, written) = (.entitlement(Int(indexBySite[site])), e.grants)
            default: continue
            }
            for g in written {
                let feature: Int? = if case .feature(let f)? = Self.reference(g.feature.name, symbols, indexBySite) {
                    f
                } else {
                    nil
                }
                grants.append(ResolvedGrant(source: source, feature: feature, grant: g))
            }
        }
        self.grants = grants
    }

    /// The same declarations seen from another environment (no declaration sits in an
    /// environment block): the lists are shared, the names are `symbols`'.
    init(sharing other: EnvironmentModel, environment: EnvironmentName, symbols: SymbolTable) {
        (self.environment, self.symbols, indexBySite) = (environment, symbols, other.indexBySite)
        (products, entitlements, features, grants) = (other.products, other.entitlements, other.features, other.grants)
    }

    private static func reference(_ name: String, _ symbols: SymbolTable, _ indexBySite: [Int32]) -> Reference? {
        guard let symbol = symbols[name] else { return nil }
        let i = Int(indexBySite[symbol.site])
        return switch symbol.kind {
        case .product: .product(i)
        case .entitlement: .entitlement(i)
        case .feature, .credits: .feature(i)
        }
    }

    /// What a name stands for here, nil when nothing of that name is declared.
    public func resolve(_ name: String) -> Reference? { Self.reference(name, symbols, indexBySite) }

    public func product(_ name: String) -> RuleModel.Product? {
        if case .product(let i)? = resolve(name) { products[i] } else { nil }
    }

    public func entitlement(_ name: String) -> RuleModel.Entitlement? {
        if case .entitlement(let i)? = resolve(name) { entitlements[i] } else { nil }
    }

    /// A feature or credit system.
    public func feature(_ name: String) -> RuleModel.Feature? {
        if case .feature(let i)? = resolve(name) { features[i] } else { nil }
    }

}

/// A grant of one environment: who gives it (a product or an entitlement), the feature or
/// credit system it grants (nil when the name resolves to none: an error the checker reported),
/// and the grant as written.
public struct ResolvedGrant: Sendable {
    /// A product or an entitlement, by its index in the environment.
    public enum Source: Hashable, Sendable {
        case product(Int)
        case entitlement(Int)
    }

    public let source: Source
    public let feature: Int?
    public let grant: Grant
}
