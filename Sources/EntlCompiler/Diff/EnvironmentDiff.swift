import EntlRuntime
import EntlSyntax

/// Where a grant comes from: an entitlement, a product (product-level grants) or a boolean
/// feature's own `requires`.
enum SourceID: Hashable {
    case entitlement(String)
    case product(String)
    case requirement
}

/// A grant source of one feature: its activation (a BDD) and its grants of the feature.
struct Source {
    let id: SourceID
    let activation: Int32
    let grants: [EntlSyntax.Grant]
}

/// One side (OLD or NEW) of a comparison in one environment.
struct Side {
    let checked: CheckedRuleSet
    let table: SymbolTable
    let analysis: ConstraintAnalysis

    /// A name's declaration.
    func declaration(_ name: String) -> Declaration? {
        table[name].map { checked.declarations[$0.site].declaration }
    }

    func file(_ name: String) -> String? { table[name]?.file }

    /// Feature → the grant sources of it, each with its activation and its grants of it (none
    /// for a requirement).
    func sources(atoms: PurchaseAtoms) -> [String: [Source]] {
        var out: [String: [Source]] = [:]
        for name in table.order {
            guard let declaration = declaration(name) else { continue }
            let id: SourceID
            let activation: Int32
            let items: [Item]
            switch declaration {
            case .entitlement(let e):
                (id, activation, items) = (.entitlement(name), analysis.entitlement(name) ?? BDD.false, e.items)
            case .product(let p):
                (id, activation, items) = (.product(name), atoms.variable(name, .atLeast(1)), p.items)
            case .feature(let f):
                if f.requires != nil, let value = analysis.value(of: declaration) {
                    out[name, default: []].append(Source(id: .requirement, activation: value, grants: []))
                }
                continue
            default: continue
            }
            var byFeature: [String: [EntlSyntax.Grant]] = [:]
            for item in items { if case .grant(let g) = item.kind { byFeature[g.feature.name, default: []].append(g) } }
            for (feature, grants) in byFeature { out[feature, default: []].append(Source(id: id, activation: activation, grants: grants)) }
        }
        return out
    }
}

/// The comparison in one environment.
final class EnvironmentDiff {
    let environment: EnvironmentName
    let since: Instant
    let atoms = PurchaseAtoms()
    let old: Side
    let new: Side
    private(set) var findings: [Diagnostic] = []

    /// At most this many purchase situations are compared per feature (then `D106`).
    static let situationLimit = 4096

    init(old: CheckedRuleSet, new: CheckedRuleSet, environment: EnvironmentName, since: Instant) {
        self.environment = environment
        self.since = since
        let oldTable = old.tables[environment]!, newTable = new.tables[environment]!
        self.old = Side(checked: old, table: oldTable,
                        analysis: ConstraintAnalysis(declarations: old.declarations, table: oldTable, atoms: atoms))
        self.new = Side(checked: new, table: newTable,
                        analysis: ConstraintAnalysis(declarations: new.declarations, table: newTable, atoms: atoms))
    }

    func run() {
        compareNames()
        compareStoreIDs()
        compareConversions()
        compareEntitlements()
        compareFeatures()
        if !atoms.usable {
            findings.removeAll { [.entitlementLost, .featureLost, .allowanceShrinks].contains($0.code) }
            let start = SourceLocation(line: 1, column: 1, offset: 0)
            report(.comparisonIncomplete, "the constraints are too large to compare exactly: access and allowances were not compared",
                   file: new.checked.sources.first?.path ?? "", range: SourceRange(start: start, end: start))
        }
    }

    func report(_ code: DiagnosticCode, _ message: String, file: String, range: SourceRange,
                        help: String? = nil, notes: [DiagnosticNote] = []) {
        findings.append(Diagnostic(code, message, file: file, range: range, help: help, notes: notes))
    }

    var sinceText: String { since.rfc3339 }

    // MARK: - Names

    private func compareNames() {
        let added = new.table.order.filter { old.table[$0] == nil }
        for name in old.table.order {
            let o = old.table[name]!
            guard let n = new.table[name] else {
                var message = "\(o.kind.noun) `\(name)` is removed"
                if let renamed = added.first(where: { isRename(from: name, to: $0) }) {
                    message += "; `\(renamed)` is the same \(o.kind.noun) under another name"
                }
                report(.nameRemoved, message, file: o.file, range: o.range,
                       help: "app code or a tracker that names it is denied from now on; keep the name, or allow D404 if nothing names it")
                continue
            }
            if o.kind != n.kind {
                report(.nameRemoved, "`\(name)` was a \(o.kind.detail), is now a \(n.kind.detail)", file: n.file, range: n.range,
                       notes: [DiagnosticNote(message: "declared here before", file: o.file, range: o.range)])
            }
        }
        for name in added {
            let n = new.table[name]!
            report(.nameAdded, "new \(n.kind.detail) `\(name)`", file: n.file, range: n.range)
        }
    }

    /// Same kind and, for an entitlement, the same constraint (over every purchase state) and
    /// grants; for a product, the same store ids.
    private func isRename(from oldName: String, to newName: String) -> Bool {
        guard let o = old.declaration(oldName), let n = new.declaration(newName) else { return false }
        switch (o, n) {
        case (.entitlement(let a), .entitlement(let b)):
            guard let f = old.analysis.entitlement(oldName), let g = new.analysis.entitlement(newName) else { return false }
            return old.analysis.equivalent(f, g) && Set(a.items.map(\.kind)) == Set(b.items.map(\.kind))
        case (.product(let a), .product(let b)):
            return a.kind?.value == b.kind?.value && !storeIDs(a.items).isEmpty && storeIDs(a.items) == storeIDs(b.items)
        case (.feature(let a), .feature(let b)):
            return a.kind?.value == b.kind?.value && a.items == b.items && a.requires == nil && b.requires == nil
        default:
            return false
        }
    }

    // MARK: - Store ids

    private func storeIDs(_ items: [Item]) -> Set<StoreKey> {
        Set(items.compactMap { if case .storeID(let store, let id) = $0.kind { StoreKey(store: store.name, id: id.value) } else { nil } })
    }

    private struct StoreKey: Hashable { let store: String, id: String }

    private func compareStoreIDs() {
        var newOwner: [StoreKey: String] = [:]
        for name in new.table.order {
            if case .product(let p)? = new.declaration(name) { for key in storeIDs(p.items) { newOwner[key] = newOwner[key] ?? name } }
        }
        for name in old.table.order {
            guard case .product(let o)? = old.declaration(name), case .product(let n)? = new.declaration(name) else { continue }
            let kept = storeIDs(n.items)
            for item in o.items {
                guard case .storeID(let store, let id) = item.kind else { continue }
                let key = StoreKey(store: store.name, id: id.value)
                if kept.contains(key) { continue }
                let what = "store id \(store.name) \"\(id.value)\""
                let message = if let other = newOwner[key] {
                    "\(what) now maps to `\(other)`, not `\(name)`: its purchases stop counting for `\(name)`"
                } else {
                    "\(what) no longer maps to `\(name)`: its purchases stop counting"
                }
                report(.storeIDUnmapped, message, file: new.file(name)!, range: n.name.range,
                       help: "keep the old id next to the new one (a product may have several ids per store)",
                       notes: [DiagnosticNote(message: "the id before", file: old.file(name)!, range: item.range)])
            }
        }
    }

    // MARK: - Credit conversions

    private func conversions(_ items: [Item]) -> [(feature: String, amount: Int64, credits: Int64, range: SourceRange)] {
        items.compactMap {
            if case .conversion(let f, let amount, let credits) = $0.kind { (f.name, amount.value, credits.value, $0.range) } else { nil }
        }
    }

    private func compareConversions() {
        for name in new.table.order {
            guard case .credits(let o)? = old.declaration(name), case .credits(let n)? = new.declaration(name) else { continue }
            let before = conversions(o.items), after = conversions(n.items)
            func rate(_ amount: Int64, _ credits: Int64) -> String {
                "\(amount.grouped) for \(credits.grouped) credit\(credits == 1 ? "" : "s")"
            }
            for c in before where !after.contains(where: { $0.feature == c.feature }) {
                report(.conversionDearer, "credit system `\(name)` no longer pays for `\(c.feature)`", file: new.file(name)!,
                       range: n.name.range, notes: [DiagnosticNote(message: "the conversion before", file: old.file(name)!, range: c.range)])
            }
            for c in after {
                guard let b = before.first(where: { $0.feature == c.feature }) else {
                    report(.conversionCheaper, "credit system `\(name)` now pays for `\(c.feature)`", file: new.file(name)!, range: c.range)
                    continue
                }
                // Credits per unit, c.credits / c.amount against b.credits / b.amount, compared
                // exactly as c.credits × b.amount against b.credits × c.amount (128-bit products).
                let after = c.credits.multipliedFullWidth(by: b.amount), before = b.credits.multipliedFullWidth(by: c.amount)
                if after == before { continue }
                let dearer = (after.high, after.low) > (before.high, before.low)
                report(dearer ? .conversionDearer : .conversionCheaper,
                       "`\(c.feature)` costs \(dearer ? "more" : "fewer") `\(name)` credits: \(rate(b.amount, b.credits)) → \(rate(c.amount, c.credits))",
                       file: new.file(name)!, range: c.range,
                       notes: [DiagnosticNote(message: "the conversion before", file: old.file(name)!, range: b.range)])
            }
        }
    }

    // MARK: - Examples

    /// "a customer who owns only `pro_monthly`", "a customer with no purchases", "a customer who
    /// owns only `pro_monthly` (bought before 2026-06-01T00:00:00Z) and 5 `zbucks`".
    /// `existing`: the situation is an existing customer's, so owning a product means a purchase
    /// before `since` (not repeated in the text).
    func describe(_ situation: Int32, existing: Bool = false) -> String {
        guard let atoms = atoms.example(situation) else { return "no customer" }
        var products: [String] = []
        var facts: [String: (units: Int64, before: Instant?, since: Instant?)] = [:]
        for (product, atom) in atoms {
            if facts[product] == nil { products.append(product); facts[product] = (1, nil, nil) }
            switch atom {
            case .atLeast(let n): facts[product]!.units = max(facts[product]!.units, n)
            case .purchased(true, let t) where !existing || t != since: facts[product]!.before = min(facts[product]!.before ?? t, t)
            case .purchased(false, let t): facts[product]!.since = max(facts[product]!.since ?? t, t)
            case .purchased: break
            }
        }
        if products.isEmpty { return "a customer with no purchases" }
        let parts = products.map { p in
            let f = facts[p]!
            var text = f.units > 1 ? "\(f.units.grouped) `\(p)`" : "`\(p)`"
            switch (f.before, f.since) {
            case (let b?, let a?): text += " (bought before \(b.rfc3339), and again on or after \(a.rfc3339))"
            case (let b?, nil): text += " (bought before \(b.rfc3339))"
            case (nil, let a?): text += " (bought on or after \(a.rfc3339))"
            case (nil, nil): break
            }
            return text
        }
        let list = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        return "a customer who owns only " + list
    }
}
