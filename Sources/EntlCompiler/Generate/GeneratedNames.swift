import EntlRuntime

/// What `entlc gen` declares: every product, entitlement, feature and credit system of a rule
/// set, in declaration order (the live environment's, then names only the test environment
/// has), each with the identifier app code uses for it.
struct GeneratedNames {
    struct Entry<Value> {
        var identifier: String
        var value: Value
    }

    var products: [Entry<Product>] = []
    var entitlements: [Entry<Entitlement>] = []
    var features: [Entry<Feature>] = []
    var creditSystems: [Entry<Feature>] = []

    /// `reserved`: identifiers the generated type already uses (its members) or the language
    /// cannot take, per kind; a name that maps onto one gets a trailing `_`.
    init(_ graph: RuleGraph, reserved: Set<String>) {
        var seen = Set<String>()
        var used = [Set<String>](repeating: reserved, count: 4)
        func identifier(_ name: String, _ kind: Int) -> String {
            var id = GeneratedNames.lowerCamel(name)
            if used[kind].contains(id) { id = name }  // `api_calls` after `apiCalls`: as written
            while used[kind].contains(id) { id += "_" }
            used[kind].insert(id)
            return id
        }
        for env in [graph.live, graph.test] {
            for p in env.products where seen.insert("p " + p.name).inserted {
                products.append(Entry(identifier: identifier(p.name, 0), value: p))
            }
            for e in env.entitlements where seen.insert("e " + e.name).inserted {
                entitlements.append(Entry(identifier: identifier(e.name, 1), value: e))
            }
            for f in env.features where seen.insert("f " + f.name).inserted {
                if f.kind == .credits {
                    creditSystems.append(Entry(identifier: identifier(f.name, 3), value: f))
                } else {
                    features.append(Entry(identifier: identifier(f.name, 2), value: f))
                }
            }
        }
    }

    /// A product's id at each store that sells it: the first one declared per store.
    static func idPerStore(_ ids: [StoreID]) -> [StoreID] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0.store).inserted }
    }

    /// `api_calls` → `apiCalls`, `API_key` → `apiKey`, `proPlan` → `proPlan`, `p2_x` → `p2X`;
    /// underscores at the ends are dropped (`_` alone → `value`).
    static func lowerCamel(_ name: String) -> String {
        let parts = name.split(separator: "_")
        guard let first = parts.first else { return "value" }
        let head = first.allSatisfy { !$0.isLowercase } ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        return head + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
