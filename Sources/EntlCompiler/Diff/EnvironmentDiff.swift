import EntlRuntime
import EntlSupport
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
    let model: EnvironmentModel
    let analysis: ConstraintAnalysis

    var table: SymbolTable { model.symbols }

    func file(_ name: String) -> String? { table[name]?.file }

    /// Feature → the grant sources of it, each with its activation and its grants of it (none
    /// for a requirement).
    func sources(atoms: PurchaseAtoms) -> [String: [Source]] {
        var out: [String: [Source]] = [:]
        for name in table.order {
            let id: SourceID
            let activation: Int32
            let grants: [EntlSyntax.Grant]
            if let e = model.entitlement(name) {
                (id, activation, grants) = (.entitlement(name), analysis.entitlement(name) ?? BDD.false, e.grants)
            } else if let p = model.product(name) {
                (id, activation, grants) = (.product(name), atoms.variable(name, .atLeast(1)), p.grants)
            } else {
                if let value = analysis.requirement(name) {
                    out[name, default: []].append(Source(id: .requirement, activation: value, grants: []))
                }
                continue
            }
            var byFeature: [String: [EntlSyntax.Grant]] = [:]
            for g in grants { byFeature[g.feature.name, default: []].append(g) }
            for (feature, grants) in byFeature {
                out[feature, default: []].append(Source(id: id, activation: activation, grants: grants))
            }
        }
        return out
    }
}

/// The comparison in one environment.
final class EnvironmentDiff {
    let environment: EnvironmentName
    let since: Instant
    /// Three-valued: access is a constraint that is true, not unknown (a purchase of unknown
    /// status), so a rewrite equal on known purchases can still take access (`a or b` →
    /// `a or (b and not a)` with `a` unknown).
    let atoms: PurchaseAtoms
    let old: Side
    let new: Side
    private(set) var findings: [Diagnostic] = []

    /// At most this many purchase situations are compared per feature (then `D106`).
    static let situationLimit = 4096

    init(old: CheckedRuleSet, new: CheckedRuleSet, environment: EnvironmentName, since: Instant,
         capacity: Int = BDD.defaultCapacity) {
        self.environment = environment
        self.since = since
        let atoms = PurchaseAtoms(threeValued: true, capacity: capacity)
        self.atoms = atoms
        let oldModel = old.model[environment], newModel = new.model[environment]
        self.old = Side(checked: old, model: oldModel,
                        analysis: ConstraintAnalysis(declarations: old.declarations, table: oldModel.symbols,
                                                     atoms: atoms))
        self.new = Side(checked: new, model: newModel,
                        analysis: ConstraintAnalysis(declarations: new.declarations, table: newModel.symbols,
                                                     atoms: atoms))
    }

    func run() {
        compareNames()
        compareEvents()
        compareStoreIDs()
        compareDurations()
        compareConversions()
        compareEntitlements()
        compareFeatures()
        if !atoms.usable {
            // Every finding read from the diagrams goes: a gain or a "future purchases only" is as
            // unfounded as a loss when the diagrams are incomplete.
            findings.removeAll {
                [.entitlementLost, .featureLost, .allowanceShrinks, .accessGained, .allowanceGrows,
                 .futurePurchasesOnly, .comparisonIncomplete].contains($0.code)
            }
            let start = SourceLocation(line: 1, column: 1, offset: 0)
            report(.comparisonIncomplete,
                   "the constraints are too large to compare exactly: access and allowances were not compared",
                   file: new.checked.sources.first?.path ?? "", range: SourceRange(start: start, end: start))
        }
    }

    /// Forgets the findings from index `start` on.
    func dropFindings(from start: Int) { findings.removeSubrange(start...) }

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
                       help: "app code or a tracker that names it is denied from now on; keep the name, "
                             + "or allow D404 if nothing names it")
                continue
            }
            if o.kind != n.kind {
                report(.nameRemoved, "`\(name)` was \(o.kind.detail.withIndefiniteArticle), "
                       + "is now \(n.kind.detail.withIndefiniteArticle)", file: n.file,
                       range: n.range,
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
        if let a = old.model.entitlement(oldName), let b = new.model.entitlement(newName) {
            guard let f = old.analysis.entitlement(oldName),
                  let g = new.analysis.entitlement(newName) else { return false }
            return old.analysis.equivalent(f, g) && a.displayName == b.displayName && Set(a.grants) == Set(b.grants)
        }
        if let a = old.model.product(oldName), let b = new.model.product(newName) {
            return a.kind?.value == b.kind?.value && !storeIDs(a).isEmpty && storeIDs(a) == storeIDs(b)
        }
        if let a = old.model.feature(oldName), let b = new.model.feature(newName), !a.isCreditSystem,
           !b.isCreditSystem {
            return a.kind?.value == b.kind?.value && a.displayName == b.displayName && a.usage == b.usage
                && a.event == b.event && a.unit?.singular == b.unit?.singular && a.unit?.plural == b.unit?.plural
                && a.requires == nil && b.requires == nil
        }
        return false
    }

    /// A string of the rules as written in them.
    private func literal(_ s: String) -> String {
        s.quotedLiteral(escapes: ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t"], uppercaseHex: true)
    }

    // MARK: - Events

    /// A tracker names a feature in its usage records by the feature's `event` name too: an event
    /// that now names another feature moves what was used from one to the other; one that names
    /// none is an error in every state that reports it.
    private func compareEvents() {
        func owners(_ side: Side) -> [String: RuleModel.Feature] {
            var out: [String: RuleModel.Feature] = [:]
            for f in side.model.features { if let e = f.event?.value, out[e] == nil { out[e] = f } }
            return out
        }
        let after = owners(new)
        for o in old.model.features {
            guard let event = o.event else { continue }
            let name = o.name.name, quoted = "event " + literal(event.value)
            let note = [DiagnosticNote(message: "the event before", file: old.file(name)!, range: event.range)]
            if let other = new.model.feature(event.value), other.name.name != name, old.table[event.value] == nil {
                // A record gives a feature's name or its event's: a rule name wins.
                report(.nameRemoved,
                       "\(quoted) is now also the name of `\(event.value)`: usage reported as feature "
                       + "\(literal(event.value)) counts for `\(event.value)`, not `\(name)`",
                       file: new.file(event.value)!, range: other.name.range, help: "give the feature another name",
                       notes: note)
            }
            if let n = after[event.value] {
                // The same feature renamed keeps its event: the rename is reported (D404) already.
                guard n.name.name != name, !(new.table[name] == nil && isRename(from: name, to: n.name.name))
                else { continue }
                report(.nameRemoved,
                       "\(quoted) now names `\(n.name.name)`, not `\(name)`: usage reported under it counts for "
                       + "`\(n.name.name)`", file: new.file(n.name.name)!, range: n.event!.range,
                       help: "trackers report usage by event name; keep each event on its feature", notes: note)
            } else if new.table[name] != nil {
                report(.nameRemoved, "\(quoted) no longer names `\(name)`: usage reported under it stops counting",
                       file: new.file(name)!, range: new.table[name]!.range,
                       help: "trackers report usage by event name; keep the event", notes: note)
            }
        }
    }

    // MARK: - Durations

    /// A non-renewing purchase with no `expires_at` is owned for its product's `duration` from its
    /// purchase: a shorter one, or one where there was none, ends what existing customers hold.
    private func compareDurations() {
        for o in old.model.products {
            let name = o.name.name
            guard let n = new.model.product(name), n.kind?.value == o.kind?.value, let d = n.duration else { continue }
            let after = Allowance.Length(d.count.value, d.unit.value)
            func text(_ d: RuleModel.Duration) -> String {
                d.count.value.grouped + " " + d.unit.value.word(after: d.count.value)
            }
            if let b = o.duration {
                let before = Allowance.Length(b.count.value, b.unit.value)
                guard !Allowance.Length.lasts(after, atLeast: before, surely: true) else { continue }
                report(.ownershipShortened,
                       "`\(name)` is owned for \(text(d)), not \(text(b)): "
                       + "its purchases without `expires_at` end sooner", file: new.file(name)!, range: d.range,
                       notes: [DiagnosticNote(message: "the duration before", file: old.file(name)!, range: b.range)])
            } else {
                report(.ownershipShortened,
                       "`\(name)` is now owned for \(text(d)): its purchases without `expires_at` had no end",
                       file: new.file(name)!, range: d.range)
            }
        }
    }

    // MARK: - Store ids

    private func storeIDs(_ product: RuleModel.Product) -> Set<StoreKey> {
        Set(product.storeIDs.map { StoreKey(store: $0.store.name, id: $0.id.value) })
    }

    private struct StoreKey: Hashable { let store: String, id: String }

    private func compareStoreIDs() {
        var newOwner: [StoreKey: String] = [:]
        for p in new.model.products {
            for key in storeIDs(p) { newOwner[key] = newOwner[key] ?? p.name.name }
        }
        compareStorelessIDs()
        for o in old.model.products {
            let name = o.name.name
            guard let n = new.model.product(name) else { continue }
            let kept = storeIDs(n)
            for storeID in o.storeIDs {
                let key = StoreKey(store: storeID.store.name, id: storeID.id.value)
                if kept.contains(key) { continue }
                let what = "store id \(key.store) \"\(key.id)\""
                let message = if let other = newOwner[key] {
                    "\(what) now maps to `\(other)`, not `\(name)`: its purchases stop counting for `\(name)`"
                } else {
                    "\(what) no longer maps to `\(name)`: its purchases stop counting"
                }
                report(.storeIDUnmapped, message, file: new.file(name)!, range: n.name.range,
                       help: "keep the old id next to the new one (a product may have several ids per store)",
                       notes: [DiagnosticNote(message: "the id before", file: old.file(name)!, range: storeID.range)])
            }
        }
    }

    /// A purchase that gives its product without a `store` matches a rule name first, then an id
    /// of any store; an id two products have is an error. So an id of `P` that a product added or
    /// changed now has too (at any store), or that is now a product's name, moves or breaks the
    /// purchases that give it alone.
    private func compareStorelessIDs() {
        func owners(_ side: Side) -> [String: Set<String>] {
            var out: [String: Set<String>] = [:]
            for p in side.model.products { for id in p.storeIDs { out[id.id.value, default: []].insert(p.name.name) } }
            return out
        }
        let before = owners(old), after = owners(new)
        var reported = Set<String>()
        for o in old.model.products {
            let name = o.name.name
            guard new.model.product(name) != nil else { continue }
            for storeID in o.storeIDs {
                let id = storeID.id.value
                guard before[id] == [name], old.model.product(id) == nil, reported.insert(id).inserted else { continue }
                let what = "id " + literal(id)
                let message: String
                if let named = new.model.product(id), named.name.name != name {
                    message = "\(what) is now the name of product `\(id)`: a purchase that gives it without a "
                        + "`store` counts for `\(id)`, not `\(name)`"
                } else if let others = after[id]?.subtracting([name]).sorted(), !others.isEmpty,
                          after[id]?.contains(name) == true {
                    message = "\(what) now also belongs to \(others.map { "`\($0)`" }.joined(separator: ", ")): "
                        + "a purchase that gives it without a `store` is an error naming both"
                } else {
                    continue
                }
                report(.storeIDUnmapped, message, file: new.file(name)!, range: new.model.product(name)!.name.range,
                       help: "give each product ids of its own, or have trackers send `store` with every purchase",
                       notes: [DiagnosticNote(message: "the id", file: old.file(name)!, range: storeID.range)])
            }
        }
    }

    // MARK: - Credit conversions

    private func conversions(_ system: RuleModel.Feature) -> [(feature: String, amount: Int64, credits: Int64,
                                                               range: SourceRange)] {
        system.conversions.map { ($0.feature.name, $0.amount.value, $0.credits.value, $0.range) }
    }

    private func compareConversions() {
        for n in new.model.features where n.isCreditSystem {
            let name = n.name.name
            guard let o = old.model.feature(name), o.isCreditSystem else { continue }
            let before = conversions(o), after = conversions(n)
            func rate(_ amount: Int64, _ credits: Int64) -> String {
                "\(amount.grouped) for \(credits.grouped) credit\(credits == 1 ? "" : "s")"
            }
            for c in before where !after.contains(where: { $0.feature == c.feature }) {
                report(.conversionDearer, "credit system `\(name)` no longer pays for `\(c.feature)`",
                       file: new.file(name)!, range: n.name.range,
                       notes: [DiagnosticNote(message: "the conversion before", file: old.file(name)!, range: c.range)])
            }
            for c in after {
                guard let b = before.first(where: { $0.feature == c.feature }) else {
                    report(.conversionCheaper, "credit system `\(name)` now pays for `\(c.feature)`",
                           file: new.file(name)!, range: c.range)
                    continue
                }
                // Credits per unit, c.credits / c.amount against b.credits / b.amount, compared
                // exactly as c.credits × b.amount against b.credits × c.amount (128-bit products).
                let after = c.credits.multipliedFullWidth(by: b.amount)
                let before = b.credits.multipliedFullWidth(by: c.amount)
                if after == before { continue }
                let dearer = (after.high, after.low) > (before.high, before.low)
                report(dearer ? .conversionDearer : .conversionCheaper,
                       "`\(c.feature)` costs \(dearer ? "more" : "fewer") `\(name)` credits: "
                       + "\(rate(b.amount, b.credits)) → \(rate(c.amount, c.credits))",
                       file: new.file(name)!, range: c.range,
                       notes: [DiagnosticNote(message: "the conversion before", file: old.file(name)!, range: b.range)])
            }
        }
    }

    // MARK: - Examples

    /// "a customer who owns only `pro_monthly`", "a customer with no purchases", "a customer who
    /// owns only `pro_monthly` (bought before 2026-06-01T00:00:00Z) and 5 `zbucks`".
    /// `existing`: the situation is an existing customer's, so owning a product means a purchase
    /// before `since` (not repeated in the text). Purchases of unknown status come last: "… and
    /// `b` of unknown status" (`3 more `c`` where some units are known).
    func describe(_ situation: Int32, existing: Bool = false) -> String {
        guard let atoms = atoms.example(situation) else { return "no customer" }
        typealias Facts = (units: Int64, before: Instant?, since: Instant?)
        var products: [(name: String, unknown: Bool)] = []
        var facts: [String: Facts] = [:], unknown: [String: Facts] = [:]
        for (product, atom, isUnknown) in atoms {
            if isUnknown ? unknown[product] == nil : facts[product] == nil {
                products.append((product, isUnknown))
            }
            var f = (isUnknown ? unknown[product] : facts[product]) ?? (1, nil, nil)
            switch atom {
            case .atLeast(let n): f.units = max(f.units, n)
            case .purchased(true, let t) where !existing || t != since: f.before = min(f.before ?? t, t)
            case .purchased(false, let t): f.since = max(f.since ?? t, t)
            case .purchased: break
            }
            if isUnknown { unknown[product] = f } else { facts[product] = f }
        }
        func text(_ p: String, _ f: Facts, more: Bool) -> String {
            var text = f.units > 1 ? "\(f.units.grouped)\(more ? " more" : "") `\(p)`" : "`\(p)`"
            switch (f.before, f.since) {
            // One purchase between the two instants, when there is room for one; else two.
            case (let b?, let a?) where a < b: text += " (bought on or after \(a.rfc3339) and before \(b.rfc3339))"
            case (let b?, let a?): text += " (bought before \(b.rfc3339), and again on or after \(a.rfc3339))"
            case (let b?, nil): text += " (bought before \(b.rfc3339))"
            case (nil, let a?): text += " (bought on or after \(a.rfc3339))"
            case (nil, nil): break
            }
            return text
        }
        func list(_ parts: [String]) -> String {
            parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        }
        let known = products.filter { !$0.unknown }.map { text($0.name, facts[$0.name]!, more: false) }
        let uncertain = products.filter(\.unknown).map { p -> String in
            var f = unknown[p.name]!
            // Units beyond those known: `c >= 2` known and `c >= 5` possible are 3 more.
            let held = facts[p.name]?.units ?? 0
            if f.units > held, held > 0 { f.units -= held; return text(p.name, f, more: f.units > 1) }
            return text(p.name, f, more: false)
        }
        if uncertain.isEmpty {
            return known.isEmpty ? "a customer with no purchases" : "a customer who owns only " + list(known)
        }
        let unknownText = list(uncertain) + " of unknown status"
        return known.isEmpty ? "a customer with nothing but " + unknownText
            : "a customer who owns only " + list(known) + ", and " + unknownText
    }
}
