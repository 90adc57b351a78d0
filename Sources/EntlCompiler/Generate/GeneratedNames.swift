import EntlRuntime
import EntlSyntax

/// What `entlc gen` declares: every product, entitlement, feature and credit system of a rule
/// set, in declaration order (the live environment's, then names only the test environment
/// has), each with the identifier app code uses for it. The declarations come from the model;
/// the values written for them from the graph lowered from it (the model's lists are the
/// graph's, index for index): what app code will query.
///
/// The identifier of a name depends on that name alone, never on the other declarations or on
/// their order: `lowerCamel`, then the target's `escape` (a leading `_` before a digit, a
/// trailing `_` after one of the type's own member names, backticks around a keyword). Adding a
/// declaration can therefore never move an identifier app code already uses onto another
/// declaration. Two names of one kind that map onto one identifier (they differ only by `_` or
/// case) are refused with a `GenerationError` naming both.
struct GeneratedNames {
    struct Entry<Value> {
        var identifier: String
        var value: Value
    }

    var products: [Entry<Product>] = []
    var entitlements: [Entry<Entitlement>] = []
    var features: [Entry<Feature>] = []
    var creditSystems: [Entry<Feature>] = []

    /// `escape` turns a lower-camel name into the target's identifier; it must be one to one on
    /// `lowerCamel`'s results (which contain no `_`, or nothing else), so that only `lowerCamel`
    /// can make two names collide.
    /// `graph` is the graph lowered from `checked`.
    init(_ graph: RuleGraph, _ checked: CheckedRuleSet, escape: (String) -> String) throws(GenerationError) {
        var seen = Set<String>()
        var claimed: [[String: GenerationError.Declaration]] = Array(repeating: [:], count: 4)
        var collisions: [GenerationError.Collision] = []
        func identifier(_ named: any Named, _ kind: Int) -> String {
            let id = escape(GeneratedNames.lowerCamel(named.name.name))
            let declaration = GenerationError.Declaration(noun: named.symbolKind.noun, name: named.name.name,
                                                          file: named.site.file, range: named.name.range)
            if let other = claimed[kind][id] {
                collisions.append(GenerationError.Collision(identifier: id, declarations: [other, declaration]))
            } else {
                claimed[kind][id] = declaration
            }
            return id
        }
        for (model, lowered) in [(checked.model.live, graph.live), (checked.model.test, graph.test)] {
            for (i, p) in model.products.enumerated() where seen.insert("p " + p.name.name).inserted {
                products.append(Entry(identifier: identifier(p, 0), value: lowered.products[i]))
            }
            for (i, e) in model.entitlements.enumerated() where seen.insert("e " + e.name.name).inserted {
                entitlements.append(Entry(identifier: identifier(e, 1), value: lowered.entitlements[i]))
            }
            // A feature and a credit system of one name (one in each environment) are both kept.
            for (i, f) in model.features.enumerated()
            where seen.insert((f.isCreditSystem ? "c " : "f ") + f.name.name).inserted {
                if f.isCreditSystem {
                    creditSystems.append(Entry(identifier: identifier(f, 3), value: lowered.features[i]))
                } else {
                    features.append(Entry(identifier: identifier(f, 2), value: lowered.features[i]))
                }
            }
        }
        if !collisions.isEmpty {
            // In source order: by file, then offset; each pair's later declaration last.
            let fileIndex = Dictionary(checked.sources.enumerated().map { ($1.path, $0) },
                                       uniquingKeysWith: { a, _ in a })
            func key(_ d: GenerationError.Declaration) -> (Int, Int) { (fileIndex[d.file] ?? 0, d.range.start.offset) }
            for i in collisions.indices where key(collisions[i].declarations[1]) < key(collisions[i].declarations[0]) {
                collisions[i].declarations.reverse()
            }
            throw GenerationError(collisions: collisions.sorted { key($0.declarations[1]) < key($1.declarations[1]) })
        }
    }

    /// A product's id at each store that sells it: the first one declared per store.
    static func idPerStore(_ ids: [StoreID]) -> [StoreID] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0.store).inserted }
    }

    /// `api_calls` → `apiCalls`, `API_key` → `apiKey`, `proPlan` → `proPlan`, `p2_x` → `p2X`,
    /// `_9lives` → `9lives` (the target escapes the digit); underscores are dropped. A name of
    /// underscores alone keeps them and gets one more (`_` → `__`: `_` alone is no identifier).
    /// Other results have only letters and digits.
    static func lowerCamel(_ name: String) -> String {
        let parts = name.split(separator: "_")
        guard let first = parts.first else { return name + "_" }
        let head = first.allSatisfy { !$0.isLowercase } ? first.lowercased()
            : first.prefix(1).lowercased() + first.dropFirst()
        return head + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Whether an identifier needs a letter or `_` in front (it starts with a digit).
    static func startsWithDigit(_ id: String) -> Bool {
        id.first.map { $0 >= "0" && $0 <= "9" } ?? false
    }
}

/// Why `entlc gen` cannot write identifiers for a rule set: names of one kind that map onto one
/// identifier. Refused rather than renamed, because a renaming rule would let a later
/// declaration take an identifier that app code already uses for another one.
public struct GenerationError: Error, Sendable, CustomStringConvertible {
    public struct Declaration: Sendable, Equatable {
        public var noun: String
        public var name: String
        public var file: String
        /// The range of the declared name.
        public var range: SourceRange
    }

    /// Two declarations whose names give one identifier, in source order.
    public struct Collision: Sendable, Equatable {
        public var identifier: String
        public var declarations: [Declaration]

        /// `names.entl:8:9: error: feature `apiCalls` and feature `api_calls` (names.entl:7:9) both become …`,
        /// at the second of the two.
        public var message: String {
            let (first, second) = (declarations[0], declarations[1])
            return "\(second.file):\(second.range.start.line):\(second.range.start.column): error: "
                + GenerationError.message(first, second, identifier)
        }
    }

    public var collisions: [Collision]

    public var description: String { collisions.map(\.message).joined(separator: "\n") }
}

extension GenerationError {
    fileprivate static func message(_ first: Declaration, _ second: Declaration, _ identifier: String) -> String {
        "\(second.noun) `\(second.name)` and \(first.noun) `\(first.name)` "
            + "(\(first.file):\(first.range.start.line):\(first.range.start.column)) "
            + "both become the identifier `\(identifier)`; rename one of them"
    }
}
