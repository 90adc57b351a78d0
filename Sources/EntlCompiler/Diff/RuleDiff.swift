import EntlRuntime
import EntlSyntax

/// The findings `entlc diff` reports (`D4xx` breaking, `D1xx` the rest).
extension DiagnosticCode {
    public static let entitlementLost = DiagnosticCode("D401", "entitlement lost by existing customers")
    public static let featureLost = DiagnosticCode("D402", "feature lost by existing customers")
    public static let allowanceShrinks = DiagnosticCode("D403", "allowance shrinks for existing customers")
    public static let nameRemoved = DiagnosticCode("D404", "name removed or of another kind")
    public static let storeIDUnmapped = DiagnosticCode("D405", "store id no longer maps to its product")
    public static let conversionDearer = DiagnosticCode("D406", "credit conversion dearer or removed")
    public static let accessGained = DiagnosticCode("D101", "access gained")
    public static let allowanceGrows = DiagnosticCode("D102", "allowance grows")
    public static let nameAdded = DiagnosticCode("D103", "new name")
    public static let conversionCheaper = DiagnosticCode("D104", "credit conversion cheaper or added")
    public static let futurePurchasesOnly = DiagnosticCode("D105", "change for future purchases only")
    public static let comparisonIncomplete = DiagnosticCode("D106", "comparison incomplete")

    static let diffCodes: [DiagnosticCode] = [
        .entitlementLost, .featureLost, .allowanceShrinks, .nameRemoved, .storeIDUnmapped, .conversionDearer,
        .accessGained, .allowanceGrows, .nameAdded, .conversionCheaper, .futurePurchasesOnly, .comparisonIncomplete,
    ]

    /// Whether the finding takes something from existing customers or from app code.
    public var isBreaking: Bool { id.hasPrefix("D4") }
}

/// What a change from one version of a rule set to another does, decided on the checked rules
/// (not their text), per environment, in one purchase-atom space shared by both versions:
///
/// - Access (`D401`, `D402`, `D101`): an entitlement's or a boolean feature's availability as a
///   function of the purchases (the linter's BDDs). A situation that had it and loses it is
///   breaking when an *existing* customer can be in it — everything bought before `since` — and
///   otherwise a change for future purchases only (`D105`, which is what a grandfathered change
///   looks like).
/// - Allowances (`D403`, `D102`): for each metered feature and credit system, the purchase
///   situations are split by which grant sources (entitlements, products, on both sides) are
///   active, and in each the old and new grants are compared (`Allowance.covers`).
/// - Names (`D404`, `D103`), store ids (`D405`), credit conversions (`D406`, `D104`).
///
/// Breaking findings are errors (unless allowed: then notes), the rest notes. Each names an
/// example situation, and where it fits a grandfathering rewrite with `since` as the instant.
public struct RuleDiff: Sendable {
    /// Every finding, in output order (NEW's files first, then OLD's).
    public var findings: [Diagnostic]

    public var breaking: [Diagnostic] { findings.filter { $0.severity == .error } }

    /// Compares two checked rule sets without errors. `allowed`: breaking codes reported as notes.
    public static func compare(old: CheckedRuleSet, new: CheckedRuleSet, since: Instant,
                               environments: [EnvironmentName] = EnvironmentName.allCases,
                               allowed: Set<String> = []) -> RuleDiff {
        var perEnvironment: [[Diagnostic]] = []
        for env in environments {
            let diff = EnvironmentDiff(old: old, new: new, environment: env, since: since)
            diff.run()
            perEnvironment.append(diff.findings)
        }
        // A finding made in every compared environment is reported once; one made in some only
        // says where.
        var count: [Diagnostic: Int] = [:]
        for list in perEnvironment { for d in Set(list) { count[d, default: 0] += 1 } }
        var seen: Set<Diagnostic> = []
        var findings: [Diagnostic] = []
        for (env, list) in zip(environments, perEnvironment) {
            for d in list where seen.insert(d).inserted {
                var d = d
                if count[d]! < environments.count { d.message += " (environment `\(env.rawValue)`)" }
                if d.code.isBreaking, allowed.contains(d.code.id) { d.severity = .note }
                findings.append(d)
            }
        }
        let order = new.sources.map(\.path) + old.sources.map(\.path)
        return RuleDiff(findings: findings.sortedForOutput(fileOrder: order))
    }
}

/// Where a grant comes from: an entitlement, a product (product-level grants) or a boolean
/// feature's own `requires`.
private enum SourceID: Hashable, Comparable {
    case entitlement(String)
    case product(String)
    case requirement
}

/// A grant source of one feature: its activation (a BDD) and its grants of the feature.
private struct Source {
    let id: SourceID
    let activation: Int32
    let grants: [EntlSyntax.Grant]
}

/// One side (OLD or NEW) of a comparison in one environment.
private struct Side {
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
private final class EnvironmentDiff {
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

    private func report(_ code: DiagnosticCode, _ message: String, file: String, range: SourceRange,
                        help: String? = nil, notes: [DiagnosticNote] = []) {
        findings.append(Diagnostic(code, message, file: file, range: range, help: help, notes: notes))
    }

    private var sinceText: String { since.rfc3339 }

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
    private func describe(_ situation: Int32, existing: Bool = false) -> String {
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

    // MARK: - Entitlements

    private func compareEntitlements() {
        for name in new.table.order {
            guard case .entitlement(let n)? = new.declaration(name), case .entitlement(let o)? = old.declaration(name),
                  let f = old.analysis.entitlement(name), let g = new.analysis.entitlement(name) else { continue }
            let domain = atoms.domain([f, g])
            let lost = atoms.and(atoms.and(f, atoms.not(g)), domain)
            let gained = atoms.and(atoms.and(g, atoms.not(f)), domain)
            if lost != BDD.false {
                let existing = atoms.and(lost, atoms.boughtBefore(since, [f, g]))
                let notes = [DiagnosticNote(message: "before: `\(o.expression)`", file: old.file(name)!, range: o.expression.range)]
                if existing != BDD.false {
                    report(.entitlementLost, "\(describe(existing, existing: true)) loses entitlement `\(name)`", file: new.file(name)!,
                           range: n.name.range, help: keepEntitlement(name, old: o.expression, new: n.expression, oldValue: f, newValue: g),
                           notes: notes)
                } else {
                    report(.futurePurchasesOnly, "only purchases from \(sinceText) on change: \(describe(lost)) loses entitlement `\(name)`",
                           file: new.file(name)!, range: n.name.range, notes: notes)
                }
            }
            if gained != BDD.false {
                report(.accessGained, "\(describe(gained)) gains entitlement `\(name)`", file: new.file(name)!, range: n.name.range)
            }
        }
    }

    /// `entitlement NAME = NEW or OLD'` with OLD' the old terms NEW no longer covers, their
    /// products qualified `purchased before SINCE` — when that rewrite compiles in NEW and keeps
    /// every existing customer's access.
    private func keepEntitlement(_ name: String, old: Expression, new newExpression: Expression, oldValue: Int32,
                                 newValue: Int32) -> String? {
        let existing = atoms.boughtBefore(since, [oldValue, newValue])
        let terms: [Expression] = if case .or(let t) = old { t } else { [old] }
        var kept: [Expression] = []
        for t in terms {
            let v = self.old.analysis.value(t)
            if atoms.and(atoms.and(v, atoms.not(newValue)), existing) == BDD.false { continue }
            guard let q = qualified(t) else { return nil }
            kept.append(q)
        }
        guard !kept.isEmpty else { return nil }
        let newTerms: [Expression] = if case .or(let t) = newExpression { t } else { [newExpression] }
        let rewrite = Expression.or(newTerms + kept)
        guard keepsExisting(rewrite, of: oldValue) else { return nil }
        return "to keep it for what was bought before \(sinceText): `entitlement \(name) = \(rewrite)`"
    }

    /// Whether `rewrite` compiles in NEW (every name it uses is declared there with the same
    /// kind) and holds wherever `oldValue` did for existing customers.
    private func keepsExisting(_ rewrite: Expression, of oldValue: Int32) -> Bool {
        guard compilesInNew(rewrite) else { return false }
        let value = new.analysis.value(rewrite)
        let existing = atoms.boughtBefore(since, [oldValue, value])
        return atoms.and(atoms.and(oldValue, atoms.not(value)), existing) == BDD.false
    }

    private func compilesInNew(_ e: Expression) -> Bool {
        e.references.allSatisfy { r in new.table[r.name] != nil && new.table[r.name]?.kind == old.table[r.name]?.kind }
    }

    /// The OLD constraint `e` for what was bought before `since`: each product it requires
    /// qualified `purchased before`, each entitlement it requires replaced by its own constraint,
    /// qualified. Nil where no qualifier can say it (a consumable threshold above 1, `since`).
    private func qualified(_ e: Expression, positive: Bool = true) -> Expression? {
        guard positive else {
            switch e {
            case .reference(let id) where old.table[id.name]?.kind == .entitlement:
                return old.analysis.entitlement(id.name) == new.analysis.entitlement(id.name) ? e : nil
            case .not(let inner, let w): return qualified(inner, positive: true).map { .not($0, w) }
            case .and(let terms): return sequence(terms.map { qualified($0, positive: false) }).map(Expression.and)
            case .or(let terms): return sequence(terms.map { qualified($0, positive: false) }).map(Expression.or)
            default: return e
            }
        }
        let before = PurchaseDate(relation: Located(.before, range: e.range), instant: Located(sinceText, range: e.range), range: e.range)
        switch e {
        case .reference(let id):
            if old.table[id.name]?.kind.isProduct == true { return .purchased(id, before) }
            guard case .entitlement(let d)? = old.declaration(id.name) else { return nil }
            return qualified(d.expression)
        case .atLeast(let id, let n):
            return n.value == 1 ? .purchased(id, before) : nil
        case .purchased(_, let date):
            guard date.relation.value == .before, let t = Instant(rfc3339: date.instant.value), t <= since else { return nil }
            return e
        case .everyone: return e
        case .not(let inner, let w): return qualified(inner, positive: false).map { .not($0, w) }
        case .and(let terms): return sequence(terms.map { qualified($0) }).map(Expression.and)
        case .or(let terms): return sequence(terms.map { qualified($0) }).map(Expression.or)
        case .error: return nil
        }
    }

    private func sequence(_ xs: [Expression?]) -> [Expression]? {
        var out: [Expression] = []
        for x in xs { guard let x else { return nil }; out.append(x) }
        return out
    }

    // MARK: - Features and credit systems

    private func compareFeatures() {
        let oldSources = old.sources(atoms: atoms), newSources = new.sources(atoms: atoms)
        for name in new.table.order {
            guard let n = new.table[name], let o = old.table[name], n.kind == o.kind else { continue }
            let isBoolean: Bool
            switch n.kind {
            case .feature(.boolean?, _): isBoolean = true
            case .feature(.metered?, _), .credits: isBoolean = false
            default: continue
            }
            compareFeature(name, boolean: isBoolean, old: oldSources[name] ?? [], new: newSources[name] ?? [])
        }
    }

    private typealias Sources = [Source]

    /// What `compareSituations` finds: the first situation of each kind (an existing customer
    /// losing the feature, keeping less of it; any customer gaining it, getting more), the first
    /// loss that only purchases from `since` on can meet, and the old sources active where
    /// existing customers lose.
    private struct Comparison {
        typealias Situation = (situation: Int32, active: Set<Int32>)
        var lost: Situation?
        var shrunk: Situation?
        var gained: Situation?
        var grown: Situation?
        var future: Situation?
        var losingSources: Set<Int32> = []
        var incomplete = false
    }

    /// Splits the purchase situations by the activations of every source of the feature (on
    /// both sides) and compares what each side gives in each.
    private func compareSituations(boolean: Bool, old oldSources: Sources, new newSources: Sources) -> Comparison {
        var functions: [Int32] = []
        for s in oldSources + newSources where !functions.contains(s.activation) { functions.append(s.activation) }
        var existingSituations: Int32?  // computed at the first loss: most features lose nothing
        var result = Comparison()
        var situations = 0
        func visit(_ i: Int, _ situation: Int32, _ active: Set<Int32>) {
            if situation == BDD.false || result.incomplete { return }
            guard i == functions.count else {
                // Situations where the source is off first: examples with the fewest purchases.
                visit(i + 1, atoms.and(situation, atoms.not(functions[i])), active)
                visit(i + 1, atoms.and(situation, functions[i]), active.union([functions[i]]))
                return
            }
            situations += 1
            if situations > EnvironmentDiff.situationLimit { result.incomplete = true; return }
            let before = allowance(oldSources, active), after = allowance(newSources, active)
            let (had, has) = (isOn(oldSources, active), isOn(newSources, active))
            let (covers, coveredBy) = boolean ? (has || !had, had || !has) : (after.covers(before), before.covers(after))
            if !covers {
                if existingSituations == nil { existingSituations = atoms.boughtBefore(since, functions) }
                let e = atoms.and(situation, existingSituations!)
                if e == BDD.false {
                    if result.future == nil { result.future = (situation, active) }
                } else {
                    if boolean || !has {
                        if result.lost == nil { result.lost = (e, active) }
                    } else if result.shrunk == nil {
                        result.shrunk = (e, active)
                    }
                    // The old sources that changed (a source the same on both sides gives nothing back).
                    for o in oldSources where active.contains(o.activation)
                        && !newSources.contains(where: { $0.id == o.id && $0.activation == o.activation && $0.grants == o.grants }) {
                        result.losingSources.insert(o.activation)
                    }
                }
            }
            if !coveredBy {
                if boolean || !had {
                    if result.gained == nil { result.gained = (situation, active) }
                } else if result.grown == nil {
                    result.grown = (situation, active)
                }
            }
        }
        visit(0, atoms.domain(functions), [])
        return result
    }

    private func allowance(_ sources: Sources, _ active: Set<Int32>) -> Allowance {
        Allowance(grants: sources.filter { active.contains($0.activation) }.flatMap(\.grants))
    }

    private func isOn(_ sources: Sources, _ active: Set<Int32>) -> Bool { sources.contains { active.contains($0.activation) } }

    private func compareFeature(_ feature: String, boolean: Bool, old oldSources: Sources, new newSources: Sources) {
        func change(_ active: Set<Int32>) -> String {
            "\(allowance(oldSources, active).text) → \(allowance(newSources, active).text)"
        }
        let c = compareSituations(boolean: boolean, old: oldSources, new: newSources)
        let help = c.lost == nil && c.shrunk == nil ? nil
            : keepFeature(feature, boolean: boolean, oldSources: oldSources, newSources: newSources, comparison: c)
        for (code, found) in [(DiagnosticCode.featureLost, c.lost), (.allowanceShrinks, c.shrunk)] {
            guard let (situation, active) = found else { continue }
            let (file, range) = location(feature, oldSources, newSources, active: active)
            let message = code == .featureLost ? "\(describe(situation, existing: true)) loses \(noun(feature)) `\(feature)`"
                : "`\(feature)` shrinks for \(describe(situation, existing: true)): \(change(active))"
            report(code, message, file: file, range: range, help: help)
        }
        if c.lost == nil, c.shrunk == nil, let (situation, active) = c.future {
            let (file, range) = location(feature, oldSources, newSources, active: active)
            report(.futurePurchasesOnly, "only purchases from \(sinceText) on change: `\(feature)` shrinks or is lost for \(describe(situation))",
                   file: file, range: range)
        }
        if let (situation, active) = c.gained {
            let (file, range) = location(feature, oldSources, newSources, active: active)
            report(.accessGained, "\(describe(situation)) gains \(noun(feature)) `\(feature)`", file: file, range: range)
        }
        if let (situation, active) = c.grown {
            let (file, range) = location(feature, oldSources, newSources, active: active)
            report(.allowanceGrows, "`\(feature)` grows for \(describe(situation)): \(change(active))", file: file, range: range)
        }
        if c.incomplete {
            report(.comparisonIncomplete, "`\(feature)` has too many grant sources to compare every purchase situation: compared the first \(Int64(EnvironmentDiff.situationLimit).grouped)",
                   file: new.file(feature)!, range: new.table[feature]!.range)
        }
    }

    private func noun(_ feature: String) -> String {
        new.table[feature]?.kind == .credits ? "credit system" : "feature"
    }

    /// Where a feature's finding points: the NEW grant of it from a source active in the
    /// situation, else the NEW declaration of an old source active in it (where the grant was
    /// removed), else the feature's declaration.
    private func location(_ feature: String, _ oldSources: Sources, _ sources: Sources, active: Set<Int32>) -> (String, SourceRange) {
        for s in sources where active.contains(s.activation) {
            switch s.id {
            case .entitlement(let name), .product(let name):
                if let g = s.grants.first { return (new.file(name)!, g.range) }
            case .requirement:
                if case .feature(let f)? = new.declaration(feature), let r = f.requires { return (new.file(feature)!, r.range) }
            }
        }
        for s in oldSources where active.contains(s.activation) {
            switch s.id {
            case .entitlement(let name), .product(let name):
                if let symbol = new.table[name] { return (symbol.file, symbol.range) }
            case .requirement: break
            }
        }
        return (new.file(feature)!, new.table[feature]!.range)
    }

    /// A legacy entitlement that gives existing customers back what they lose: the constraints of
    /// the old sources active where they lose, qualified `purchased before SINCE`, granting the
    /// difference (one grant that shrank in amount) or the old grants. Offered only when it
    /// compiles in NEW and, added to NEW, leaves no existing customer worse off.
    private func keepFeature(_ feature: String, boolean: Bool, oldSources: Sources, newSources: Sources,
                             comparison c: Comparison) -> String? {
        var terms: [Expression] = []
        var grants: [EntlSyntax.Grant] = []
        var names: [String] = []
        for s in oldSources where c.losingSources.contains(s.activation) {
            let expression: Expression?
            switch s.id {
            case .entitlement(let name):
                guard case .entitlement(let d)? = old.declaration(name) else { return nil }
                expression = qualified(d.expression)
                names.append(name)
            case .product(let name):
                expression = qualified(.reference(Identifier(name, range: old.table[name]!.range)))
                names.append(name)
            case .requirement:
                guard case .feature(let d)? = old.declaration(feature), let r = d.requires else { return nil }
                expression = qualified(r)
            }
            guard let expression else { return nil }
            terms.append(expression)
            grants += s.grants
        }
        guard !terms.isEmpty else { return nil }
        let constraint = terms.count == 1 ? terms[0] : Expression.or(terms.flatMap { t -> [Expression] in
            if case .or(let inner) = t { inner } else { [t] }
        })
        guard compilesInNew(constraint) else { return nil }
        let legacy = (names.first ?? feature) + "_legacy"
        guard new.table[legacy] == nil else { return nil }
        var candidates: [[EntlSyntax.Grant]] = []
        if let (_, active) = c.shrunk {
            let before = allowance(oldSources, active).grants, after = allowance(newSources, active).grants
            if before.count == 1, after.count == 1, case .count(let b)? = before[0].amount, case .count(let a)? = after[0].amount,
               before[0].per == after[0].per, before[0].carry == after[0].carry, b.value > a.value {
                var g = before[0]
                g.amount = .count(Located(b.value - a.value, range: g.range))
                candidates.append([g])
            }
        }
        candidates.append(grants)
        let activation = new.analysis.value(constraint)
        for candidate in candidates {
            let source = Source(id: .entitlement(legacy), activation: activation, grants: candidate)
            let check = compareSituations(boolean: boolean, old: oldSources, new: newSources + [source])
            guard check.lost == nil, check.shrunk == nil, !check.incomplete else { continue }
            let items = boolean ? "grants \(feature)" : candidate.map { "grants \($0)" }.joined(separator: "; ")
            return "to keep it for what was bought before \(sinceText): `entitlement \(legacy) = \(constraint) { \(items) }`"
        }
        return nil
    }
}
