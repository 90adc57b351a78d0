import EntlRuntime
import EntlSyntax

/// `entlc diff`'s access and allowance comparisons (D401–D403, D101, D102, D105) and the
/// grandfathering rewrites it offers.
extension EnvironmentDiff {
    // MARK: - Entitlements

    func compareEntitlements() {
        for name in new.table.order {
            guard let n = new.model.entitlement(name), let o = old.model.entitlement(name),
                  let f = old.analysis.entitlement(name), let g = new.analysis.entitlement(name) else { continue }
            compareWithin(name, "who gains or loses it") { compareEntitlement(name, new: n, old: o, f, g) }
        }
    }

    /// Runs the comparison of one name as a task of its own (`PurchaseAtoms.transient`): when it
    /// outgrows the store, its findings go and D106 says what was not compared — the other
    /// names' findings stand (one large feature had dropped every loss of the rule set).
    private func compareWithin(_ name: String, _ what: String, _ body: () -> Void) {
        let before = findings.count
        guard !atoms.transient(body) else { return }
        dropFindings(from: before)
        report(.comparisonIncomplete, "`\(name)` is too large to compare exactly: \(what) was not compared",
               file: new.file(name)!, range: new.table[name]!.range)
    }

    /// One entitlement on both sides: who loses it (an existing customer, or only later purchases)
    /// and who gains it.
    private func compareEntitlement(_ name: String, new n: RuleModel.Entitlement, old o: RuleModel.Entitlement,
                                    _ f: Int32, _ g: Int32) {
        let domain = atoms.domain([f, g])
        let lost = atoms.and(atoms.and(f, atoms.not(g)), domain)
        let gained = atoms.and(atoms.and(g, atoms.not(f)), domain)
        if lost != BDD.false {
            let existing = atoms.and(lost, atoms.boughtBefore(since, [f, g]))
            let notes = [DiagnosticNote(message: "before: `\(o.constraint)`", file: old.file(name)!,
                                        range: o.constraint.range)]
            if existing != BDD.false {
                report(.entitlementLost, "\(describe(existing, existing: true)) loses entitlement `\(name)`",
                       file: new.file(name)!, range: n.name.range,
                       help: keepEntitlement(name, old: o.constraint, new: n.constraint, oldValue: f, newValue: g),
                       notes: notes)
            } else {
                report(.futurePurchasesOnly,
                       "only purchases from \(sinceText) on change: \(describe(lost)) loses entitlement `\(name)`",
                       file: new.file(name)!, range: n.name.range, help: EnvironmentDiff.undatedPurchases,
                       notes: notes)
            }
        }
        if gained != BDD.false {
            report(.accessGained, "\(describe(gained)) gains entitlement `\(name)`", file: new.file(name)!,
                   range: n.name.range)
        }
    }

    /// What D105 cannot see: a purchase-date qualifier on a purchase recorded without a date.
    static let undatedPurchases = "a purchase recorded without `purchased_at` has no date to compare: under "
        + "`purchased before` or `since` it is undetermined, and an existing customer whose tracker leaves the "
        + "date out loses what it gave (check with --states)"

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
            guard let q = qualified(t), EnvironmentDiff.onlyEarlierPurchases(q) else { return nil }
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
        let before = PurchaseDate(relation: Located(.before, range: e.range),
                                  instant: Located(sinceText, range: e.range), range: e.range)
        switch e {
        case .reference(let id):
            if old.table[id.name]?.kind.isProduct == true { return .purchased(id, before) }
            guard let d = old.model.entitlement(id.name) else { return nil }
            return qualified(d.constraint)
        case .atLeast(let id, let n):
            return n.value == 1 ? .purchased(id, before) : nil
        case .purchased(_, let date):
            guard let f = date.filter, f.before, f.instant <= since else { return nil }
            return e
        case .everyone: return nil  // "every customer who bought before SINCE" is no constraint: it is everyone
        case .not(let inner, let w): return qualified(inner, positive: false).map { .not($0, w) }
        case .and(let terms): return sequence(terms.map { qualified($0) }).map(Expression.and)
        case .or(let terms): return sequence(terms.map { qualified($0) }).map(Expression.or)
        case .error: return nil
        }
    }

    /// Whether a qualified constraint holds only for a customer with a purchase before SINCE:
    /// each of its alternatives requires one (`not pro` holds for every customer who comes later
    /// without `pro`, so a legacy entitlement on it would undo the change).
    static func onlyEarlierPurchases(_ e: Expression) -> Bool {
        switch e {
        case .purchased(_, let date): return date.filter?.before == true
        case .and(let terms): return terms.contains(where: onlyEarlierPurchases)
        case .or(let terms): return terms.allSatisfy(onlyEarlierPurchases)
        default: return false
        }
    }

    private func sequence(_ xs: [Expression?]) -> [Expression]? {
        var out: [Expression] = []
        for x in xs { guard let x else { return nil }; out.append(x) }
        return out
    }

    // MARK: - Features and credit systems

    func compareFeatures() {
        let oldSources = old.sources(atoms: atoms), newSources = new.sources(atoms: atoms)
        for name in new.table.order {
            guard let n = new.table[name], let o = old.table[name], n.kind == o.kind else { continue }
            let isBoolean: Bool
            switch n.kind {
            case .feature(.boolean?, _): isBoolean = true
            case .feature(.metered?, _), .credits: isBoolean = false
            default: continue
            }
            compareWithin(name, "what it gives") {
                compareFeature(name, boolean: isBoolean, old: oldSources[name] ?? [], new: newSources[name] ?? [])
            }
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
            let (had, has) = (isOn(oldSources, active), isOn(newSources, active))
            let units = { (product: String) in self.units(of: product, in: situation) }
            let (covers, coveredBy) = boolean ? (has || !had, had || !has)
                : (self.covers(newSources, oldSources, active, units: units),
                   self.covers(oldSources, newSources, active, units: units))
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
                    for o in oldSources where active.contains(o.activation) && !newSources.contains(where: {
                        $0.id == o.id && $0.activation == o.activation && $0.grants == o.grants
                    }) {
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

    /// The fewest units of `product` a situation holds (it may require `product >= 2`).
    private func units(of product: String, in situation: Int32) -> Int64 {
        var fewest: Int64 = 1
        for (p, atom, unknown) in atoms.example(situation) ?? [] where p == product && !unknown {
            guard case .atLeast(let n) = atom, n > fewest,
                  atoms.and(situation, atoms.not(atoms.variable(p, .atLeast(n)))) == BDD.false else { continue }
            fewest = n
        }
        return fewest
    }

    /// Whether the sources `a` active in a situation give at least what `b` give, for every number
    /// of purchases and units held: a product's own grants count once per owned purchase of it,
    /// times its quantity (§4), an entitlement's once. So each product's own grants in `a` must
    /// cover its own in `b` (for many units), and everything together must cover everything for
    /// the fewest units the situation holds (`units`): a per-unit grant moved to an entitlement
    /// takes from a customer holding two units.
    private func covers(_ a: Sources, _ b: Sources, _ active: Set<Int32>, units: (String) -> Int64) -> Bool {
        func fewest(_ sources: Sources) -> Allowance {
            Allowance(grants: sources.filter { active.contains($0.activation) }.flatMap { s -> [EntlSyntax.Grant] in
                guard case .product(let name) = s.id else { return s.grants }
                let n = units(name)
                return n == 1 ? s.grants : s.grants.map { $0.scaled(by: n) }
            })
        }
        let all = fewest(a)
        guard all.covers(fewest(b)) else { return false }
        if all.isUnlimited { return true }
        return b.allSatisfy { s in
            guard case .product = s.id, active.contains(s.activation) else { return true }
            let own = a.filter { $0.id == s.id && $0.activation == s.activation }.flatMap(\.grants)
            return Allowance(grants: own).covers(Allowance(grants: s.grants))
        }
    }

    private func allowance(_ sources: Sources, _ active: Set<Int32>) -> Allowance {
        Allowance(grants: sources.filter { active.contains($0.activation) }.flatMap(\.grants))
    }

    /// The allowance of the sources active in a situation, a product's own grants marked as given
    /// for each purchase and unit of it: "100 for each `pack` + 10 per month".
    private func text(of sources: Sources, _ active: Set<Int32>) -> String {
        let own = sources.filter { if case .product = $0.id { active.contains($0.activation) } else { false } }
        let rest = allowance(sources.filter { s in !own.contains { $0.activation == s.activation && $0.id == s.id } },
                             active)
        let parts = own.compactMap { s -> String? in
            guard case .product(let name) = s.id, !s.grants.isEmpty else { return nil }
            return "\(Allowance(grants: s.grants).text) for each `\(name)`"
        } + (rest.isEmpty ? [] : [rest.text])
        return parts.isEmpty ? "nothing" : parts.joined(separator: " + ")
    }

    private func isOn(_ sources: Sources, _ active: Set<Int32>) -> Bool {
        sources.contains { active.contains($0.activation) }
    }

    private func compareFeature(_ feature: String, boolean: Bool, old oldSources: Sources, new newSources: Sources) {
        func change(_ active: Set<Int32>) -> String {
            "\(text(of: oldSources, active)) → \(text(of: newSources, active))"
        }
        let c = compareSituations(boolean: boolean, old: oldSources, new: newSources)
        let help = c.lost == nil && c.shrunk == nil ? nil
            : keepFeature(feature, boolean: boolean, oldSources: oldSources, newSources: newSources, comparison: c)
        for (code, found) in [(DiagnosticCode.featureLost, c.lost), (.allowanceShrinks, c.shrunk)] {
            guard let (situation, active) = found else { continue }
            let (file, range) = location(feature, oldSources, newSources, active: active)
            let message = code == .featureLost
                ? "\(describe(situation, existing: true)) loses \(noun(feature)) `\(feature)`"
                : "`\(feature)` shrinks for \(describe(situation, existing: true)): \(change(active))"
            report(code, message, file: file, range: range, help: help)
        }
        if c.lost == nil, c.shrunk == nil, let (situation, active) = c.future {
            let (file, range) = location(feature, oldSources, newSources, active: active)
            report(.futurePurchasesOnly,
                   "only purchases from \(sinceText) on change: "
                   + "`\(feature)` shrinks or is lost for \(describe(situation))",
                   file: file, range: range, help: EnvironmentDiff.undatedPurchases)
        }
        if let (situation, active) = c.gained {
            let (file, range) = location(feature, oldSources, newSources, active: active)
            report(.accessGained, "\(describe(situation)) gains \(noun(feature)) `\(feature)`", file: file,
                   range: range)
        }
        if let (situation, active) = c.grown {
            let (file, range) = location(feature, oldSources, newSources, active: active)
            report(.allowanceGrows, "`\(feature)` grows for \(describe(situation)): \(change(active))", file: file,
                   range: range)
        }
        if c.incomplete {
            report(.comparisonIncomplete,
                   "`\(feature)` has too many grant sources to compare every purchase situation: "
                   + "compared the first \(Int64(EnvironmentDiff.situationLimit).grouped)",
                   file: new.file(feature)!, range: new.table[feature]!.range)
        }
    }

    private func noun(_ feature: String) -> String {
        new.table[feature]?.kind == .credits ? "credit system" : "feature"
    }

    /// Where a feature's finding points: the NEW grant of it from a source active in the
    /// situation, else the NEW declaration of an old source active in it (where the grant was
    /// removed), else the feature's declaration.
    private func location(_ feature: String, _ oldSources: Sources, _ sources: Sources, active: Set<Int32>)
        -> (String, SourceRange)
    {
        for s in sources where active.contains(s.activation) {
            switch s.id {
            case .entitlement(let name), .product(let name):
                if let g = s.grants.first { return (new.file(name)!, g.range) }
            case .requirement:
                if let r = new.model.feature(feature)?.requires { return (new.file(feature)!, r.range) }
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
                guard let d = old.model.entitlement(name) else { return nil }
                expression = qualified(d.constraint)
                names.append(name)
            case .product(let name):
                // A product's allowance counts once per purchase and unit, an entitlement's once:
                // no legacy entitlement gives it back (the comparison of situations cannot see it).
                guard boolean else { return nil }
                expression = qualified(.reference(Identifier(name, range: old.table[name]!.range)))
                names.append(name)
            case .requirement:
                guard let r = old.model.feature(feature)?.requires else { return nil }
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
        guard EnvironmentDiff.onlyEarlierPurchases(constraint), compilesInNew(constraint) else { return nil }
        let legacy = (names.first ?? feature) + "_legacy"
        guard new.table[legacy] == nil else { return nil }
        var candidates: [[EntlSyntax.Grant]] = []
        if let (_, active) = c.shrunk {
            let before = allowance(oldSources, active).grants, after = allowance(newSources, active).grants
            if before.count == 1, after.count == 1, case .count(let b)? = before[0].amount,
               case .count(let a)? = after[0].amount,
               before[0].per == after[0].per, before[0].carry == after[0].carry,
               before[0].overage == after[0].overage, before[0].expiresAfter == after[0].expiresAfter,
               b.value > a.value {
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
            return "to keep it for what was bought before \(sinceText): "
                   + "`entitlement \(legacy) = \(constraint) { \(items) }`"
        }
        return nil
    }
}
