import EntlRuntime

/// What a change does to real customers (`entlc diff --states`): both versions of the rules
/// evaluated for every state; per entitlement and feature, who gains it, who loses it, and whose
/// balance changes, counted, with the first ten customers of each. Measured a block of states at
/// a time and merged in input order, so the first ten are the first ten of the input whatever
/// the number of threads.
public struct Impact: Sendable {
    /// An entitlement or a feature (credit systems are features).
    public struct Key: Hashable, Comparable, Sendable {
        /// "entitlement" or "feature".
        public var kind: String
        public var name: String

        public init(kind: String, name: String) { (self.kind, self.name) = (kind, name) }

        public static func < (a: Key, b: Key) -> Bool { (a.kind, a.name) < (b.kind, b.name) }
    }

    public struct Row: Sendable {
        public internal(set) var gained = Group(), lost = Group(), balanceChanged = Group()
    }

    /// A count and the first ten customers.
    public struct Group: Sendable {
        public private(set) var count = 0
        public private(set) var customers: [String] = []

        mutating func add(_ customer: String) {
            count += 1
            if customers.count < 10 { customers.append(customer) }
        }

        mutating func merge(_ other: Group) {
            count += other.count
            customers += other.customers.prefix(10 - customers.count)
        }
    }

    /// Where the states come from, as the report names it (a path).
    public let source: String
    /// The states evaluated.
    public private(set) var customers = 0
    /// What changed, by entitlement and feature (only those where something did).
    public private(set) var rows: [Key: Row] = [:]
    /// The states that could not be decoded or evaluated.
    public private(set) var errorCount = 0
    /// The first ten of them: their line and why.
    public private(set) var errors: [(line: Int, message: String)] = []

    public init(source: String) {
        self.source = source
    }

    /// Adds one customer: the state of line `number` (decoded by `state`, which may throw),
    /// evaluated with both graphs at its `now`, else at `clock`. A state that cannot be decoded
    /// or evaluated is counted as an error, with its message.
    public mutating func add(line number: Int, old: RuleGraph, new: RuleGraph, environment: Environment?,
                             clock: Instant, state: () throws -> PurchaseState) {
        let before: [Key: Outcome], after: [Key: Outcome]
        let customer: String
        do {
            let state = try state()
            let at = state.now ?? clock
            before = Impact.outcomes(try Evaluation(graph: old, state: state, environment: environment, at: at).all())
            after = Impact.outcomes(try Evaluation(graph: new, state: state, environment: environment, at: at).all())
            customer = state.customer ?? "line \(number)"
        } catch {
            errorCount += 1
            if errors.count < 10 { errors.append((number, (error as? StateError)?.description ?? "\(error)")) }
            return
        }
        customers += 1
        for key in Set(before.keys).union(after.keys) {
            let (b, a) = (before[key], after[key])
            let had = b?.allowed ?? false, has = a?.allowed ?? false
            if !had, has {
                rows[key, default: Row()].gained.add(customer)
            } else if had, !has {
                rows[key, default: Row()].lost.add(customer)
            } else if let b, let a, b.balance != a.balance {
                rows[key, default: Row()].balanceChanged.add(customer)
            }
        }
    }

    /// Adds what was measured on the states that come after this one's.
    public mutating func merge(_ other: Impact) {
        customers += other.customers
        errorCount += other.errorCount
        errors += other.errors.prefix(10 - errors.count)
        for (key, row) in other.rows {
            rows[key, default: Row()].gained.merge(row.gained)
            rows[key, default: Row()].lost.merge(row.lost)
            rows[key, default: Row()].balanceChanged.merge(row.balanceChanged)
        }
    }

    private struct Outcome: Equatable {
        var allowed: Bool
        /// Nil: boolean, or unlimited (then `unlimited`).
        var balance: Int64?
        var unlimited: Bool
    }

    private static func outcomes(_ results: [EvaluationResult]) -> [Key: Outcome] {
        var out: [Key: Outcome] = [:]
        for r in results {
            switch r {
            case .entitlement(let e):
                out[Key(kind: "entitlement", name: e.name)] = Outcome(allowed: e.allowed, balance: nil,
                                                                      unlimited: false)
            case .feature(let f):
                out[Key(kind: "feature", name: f.name)] = Outcome(allowed: f.allowed, balance: f.balance,
                                                                  unlimited: f.unlimited)
            case .product: break
            }
        }
        return out
    }
}
