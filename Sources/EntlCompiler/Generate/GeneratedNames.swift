import EntlRuntime
import EntlSyntax

/// What `entlc gen` declares: every product, entitlement, feature and credit system of a rule
/// set, in declaration order (the live environment's, then names only the test environment
/// has), each with the identifier app code uses for it.
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
    init(_ graph: RuleGraph, _ checked: CheckedRuleSet, escape: (String) -> String) throws(GenerationError) {
        var seen = Set<String>()
        var claimed: [[String: GenerationError.Declaration]] = Array(repeating: [:], count: 4)
        var collisions: [GenerationError.Collision] = []
        func identifier(_ name: String, _ kind: Int, _ env: EnvironmentName) -> String {
            let id = escape(GeneratedNames.lowerCamel(name))
            let symbol = checked.tables[env]?[name]
            let declaration = GenerationError.Declaration(
                noun: symbol?.kind.noun ?? "declaration", name: name, file: symbol?.file ?? "",
                range: symbol?.range ?? SourceRange(start: SourceLocation(line: 1, column: 1, offset: 0),
                                                    end: SourceLocation(line: 1, column: 1, offset: 0)))
            if let other = claimed[kind][id] {
                collisions.append(GenerationError.Collision(identifier: id, declarations: [other, declaration]))
            } else {
                claimed[kind][id] = declaration
            }
            return id
        }
        for (env, graphEnv) in [(EnvironmentName.live, graph.live), (.test, graph.test)] {
            for p in graphEnv.products where seen.insert("p " + p.name).inserted {
                products.append(Entry(identifier: identifier(p.name, 0, env), value: p))
            }
            for e in graphEnv.entitlements where seen.insert("e " + e.name).inserted {
                entitlements.append(Entry(identifier: identifier(e.name, 1, env), value: e))
            }
            for f in graphEnv.features where seen.insert("f " + f.name).inserted {
                if f.kind == .credits {
                    creditSystems.append(Entry(identifier: identifier(f.name, 3, env), value: f))
                } else {
                    features.append(Entry(identifier: identifier(f.name, 2, env), value: f))
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
