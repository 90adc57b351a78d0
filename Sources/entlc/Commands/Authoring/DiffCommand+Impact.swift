import EntlCompiler
import EntlRuntime

/// `--states`: EntlCompiler's `Impact` measured over a JSONL file, and its text and JSON (the
/// Markdown is in `DiffCommand+Markdown.swift`).
extension Impact {
    /// Both graphs evaluated for every line of `path`, a state without `now` at `at` (`--since`).
    static func measure(_ path: String, old: RuleGraph, new: RuleGraph, environment: Environment?, at: Instant,
                        jobs: Int) throws(CLIError) -> Impact {
        var total = Impact(source: path)
        try JSONLines.process(path, jobs: jobs, initial: { Impact(source: path) }, reset: { $0 = Impact(source: path) },
                              line: { line, number, impact in
            impact.add(line: number, old: old, new: new, environment: environment, at: at) {
                try JSONLines.state(line)
            }
        }, size: { _ in 0 }, consume: { total.merge($0) })  // a summary: its size does not grow with the lines
        return total
    }

    /// The keys of the rows, in report order (entitlements, then features, by name).
    var keys: [Key] { rows.keys.sorted() }

    /// The rows' keys whose balances moved.
    var balanceKeys: [Key] { keys.filter { !rows[$0]!.balances.isEmpty } }

    /// The groups of a row as the reports name them (`lose`, `gain`, `change balance`), in that
    /// order, each with its count in a `Counts`.
    static var groups: [(word: String, group: KeyPath<Row, Group>, count: KeyPath<Counts, Int>)] {
        [("lose", \.lost, \.lost), ("gain", \.gained, \.gained), ("change balance", \.balanceChanged, \.balanceChanged)]
    }

    /// The table a reviewer reads.
    var text: String {
        var out = "Impact on \(Int64(customers).grouped) customer\(customers == 1 ? "" : "s") in \(source):\n"
        if rows.isEmpty { out += "  no customer gains or loses anything, and no balance changes\n" }
        for key in keys {
            for (word, group, _) in Impact.groups where rows[key]![keyPath: group].count > 0 {
                let g = rows[key]![keyPath: group]
                out += "  \(key.kind) \(key.name): \(Int64(g.count).grouped) \(word) (\(g.listed { $0 }))\n"
            }
        }
        if !rows.isEmpty { out += "  by the product that represents the customer:\n" }
        for key in keys where !rows[key]!.byProduct.isEmpty {
            let buckets = rows[key]!.byProduct.sorted { $0.key < $1.key }.map { r, counts in
                let counted = Impact.groups.compactMap { word, _, count in
                    counts[keyPath: count] > 0 ? "\(counts[keyPath: count].grouped) \(word)" : nil
                }
                return "\(r.label) (\(counted.joined(separator: ", ")))"
            }
            out += "    \(key.kind) \(key.name): \(buckets.joined(separator: ", "))\n"
        }
        if !balanceKeys.isEmpty { out += "  balances, NEW - OLD:\n" }
        for key in balanceKeys {
            out += "    \(key.kind) \(key.name): \(rows[key]!.balances.parts { $0 }.joined(separator: "; "))\n"
        }
        if errorCount > 0 {
            out += "  \(Int64(errorCount).grouped) line\(errorCount == 1 ? "" : "s") could not be evaluated:\n"
            for e in errors { out += "    line \(e.line): \(e.message)\n" }
        }
        return out
    }

    var json: JSONValue {
        func group(_ g: Group) -> JSONValue {
            .object([("count", .int(Int64(g.count))), ("customers", .array(g.customers.map { .string($0) }))])
        }
        func change(_ c: Balances.Change?) -> JSONValue {
            guard let c else { return .null }
            return .object([("change", .int(c.amount)), ("old", .int(c.old)), ("new", .int(c.new)),
                            ("customer", .string(c.customer)), ("line", .int(Int64(c.line)))])
        }
        func balances(_ b: Balances) -> JSONValue {
            if b.isEmpty { return .null }
            return .object([
                ("drops", .int(Int64(b.drops))), ("rises", .int(Int64(b.rises))), ("total", .int(b.total)),
                ("largest_drop", change(b.largestDrop)), ("largest_rise", change(b.largestRise)),
                ("became_unlimited", group(b.becameUnlimited)), ("lost_unlimited", group(b.lostUnlimited)),
            ])
        }
        return .object([
            ("states", .string(source)),
            ("customers", .int(Int64(customers))),
            ("changes", .array(keys.map { key in
                let row = rows[key]!
                return .object([
                    ("kind", .string(key.kind)), ("name", .string(key.name)), ("gained", group(row.gained)),
                    ("lost", group(row.lost)), ("balance_changed", group(row.balanceChanged)),
                    ("by_product", .array(row.byProduct.sorted { $0.key < $1.key }.map { r, counts in
                        .object([("represented_by", .string(r.kind)), ("product", .string(r.product)),
                                 ("gained", .int(Int64(counts.gained))), ("lost", .int(Int64(counts.lost))),
                                 ("balance_changed", .int(Int64(counts.balanceChanged)))])
                    })),
                    ("balances", balances(row.balances)),
                ])
            })),
            ("errors", .int(Int64(errorCount))),
            ("first_errors", .array(errors.map {
                .object([("line", .int(Int64($0.line))), ("error", .string($0.message))])
            })),
        ])
    }
}

extension Impact.Group {
    /// The first customers, each as `name` writes it, then `, …` when there are more.
    func listed(_ name: (String) -> String) -> String {
        customers.map(name).joined(separator: ", ") + (count > customers.count ? ", …" : "")
    }
}

extension Impact.Representation {
    /// JSON's `represented_by`.
    var kind: String {
        switch self {
        case .product: "product"
        case .severalProducts: "several_products"
        case .stateGrant: "state_grant"
        case .nothing: "nothing"
        }
    }

    var product: String? {
        if case .product(let p) = self { return p }
        return nil
    }

    /// The text's and Markdown's name of a bucket (a product by its name).
    var label: String {
        switch self {
        case .product(let p): p
        case .severalProducts: "several products"
        case .stateGrant: "a state grant"
        case .nothing: "no product"
        }
    }
}

extension Impact.Balances {
    /// The text of each part that says something, customers as `name` writes them: `3 drop, 1 rise,
    /// total -25,500`, `largest drop -10,000 (annual_2 on line 3: 20,000 → 10,000)`, `largest rise …`,
    /// `2 became unlimited (…)`, `1 lost unlimited (…)`.
    func parts(_ name: (String) -> String) -> [String] {
        var parts: [String] = []
        if drops + rises > 0 { parts.append("\(drops.grouped) drop, \(rises.grouped) rise, total \(total.signed)") }
        if let d = largestDrop { parts.append("largest drop \(d.described(name))") }
        if let r = largestRise { parts.append("largest rise \(r.described(name))") }
        if becameUnlimited.count > 0 {
            parts.append("\(becameUnlimited.count.grouped) became unlimited (\(becameUnlimited.listed(name)))")
        }
        if lostUnlimited.count > 0 {
            parts.append("\(lostUnlimited.count.grouped) lost unlimited (\(lostUnlimited.listed(name)))")
        }
        return parts
    }
}

extension Impact.Balances.Change {
    /// `-10,000 (annual_2 on line 3: 20,000 → 10,000)`; `(line 3: …)` for a state without `customer`.
    func described(_ name: (String) -> String) -> String {
        "\(amount.signed) (\(customer.map { name($0) + " on " } ?? "")line \(line): \(old.grouped) → \(new.grouped))"
    }
}

extension Int {
    var grouped: String { Int64(self).grouped }
}

extension Int64 {
    /// `+1,000`, `-250`, `0`.
    var signed: String { self > 0 ? "+" + grouped : grouped }
}
