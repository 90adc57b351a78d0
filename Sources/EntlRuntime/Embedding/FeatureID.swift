/// A feature or credit system of a rule graph, resolved from its name once, so that a repeated
/// question (`Evaluator.entitled(_:requiredBalance:at:)`) finds its cached answer without hashing
/// the name. `RuleGraph.featureID(named:)` and `Evaluator.feature(named:)` resolve one; the code
/// `entlc gen swift` writes holds one per declaration.
///
/// `index` is the feature's position in the graph: its index among the live environment's
/// features, else the number of those plus its index among the test environment's. An id whose
/// index does not name `name` in the evaluator's graph (made for other rules, or by hand) is
/// resolved by its name: a stale id costs a lookup, never a wrong answer.
public struct FeatureID: Hashable, Sendable, CustomStringConvertible {
    /// The name in the rules.
    public let name: String
    /// The position in the graph it was resolved in (see above).
    public let index: Int

    public init(name: String, index: Int) {
        self.name = name
        self.index = index
    }

    public var description: String { name }
}

extension RuleGraph {
    /// The id of the feature or credit system `name` (live first, then test), nil when neither
    /// environment has one of that name.
    public func featureID(named name: String) -> FeatureID? {
        if let i = live.featureNames[name] { return FeatureID(name: live.features[i].name, index: i) }
        if let i = test.featureNames[name] {
            return FeatureID(name: test.features[i].name, index: live.features.count + i)
        }
        return nil
    }
}

/// The names of one kind (features, products or entitlements) of both environments, numbered as
/// `FeatureID.index` numbers features: the slots of the evaluator's cache.
struct NameSlots: Sendable {
    /// By slot: the name, or "" for a slot no name has (a test index whose name is live too).
    let names: [String]
    private let live: NameTable, test: NameTable
    private let liveCount: Int

    init(live: [String], _ liveTable: NameTable, test: [String], _ testTable: NameTable) {
        self.live = liveTable
        self.test = testTable
        liveCount = live.count
        names = live + test.map { liveTable[$0] == nil ? $0 : "" }
    }

    var count: Int { names.count }

    /// The slot of `name`, or nil when no environment has it.
    @inline(__always)
    func slot(_ name: String) -> Int? {
        if let i = live[name] { return i }
        return test[name].map { liveCount + $0 }
    }

    /// The slot of an id: its index when that names it here, else its name's.
    @inline(__always)
    func slot(_ id: FeatureID) -> Int? {
        if id.index >= 0, id.index < names.count, names[id.index] == id.name { return id.index }
        return slot(id.name)
    }
}
