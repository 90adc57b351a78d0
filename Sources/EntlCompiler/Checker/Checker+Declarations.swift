import EntlSupport
import EntlSyntax

extension Checker {
    mutating func checkDeclaration(_ site: DeclarationSite, _ table: SymbolTable) {
        switch site.declaration {
        case .product(let p): checkProduct(p, file: site.file, table: table)
        case .feature(let f): checkFeature(f, file: site.file, table: table)
        case .credits(let c): checkCredits(c, file: site.file, table: table)
        case .entitlement(let e): checkEntitlement(e, file: site.file, table: table)
        case .app, .environment, .test: break
        }
    }

    /// Items that may appear once per declaration (`grants`, `id` and conversions may repeat).
    private func checkSingleItems(_ items: [Item], owner: String, file: String) {
        var first: [String: Item] = [:]
        for item in items {
            switch item.kind {
            case .grant, .storeID, .conversion: continue
            default: break
            }
            if let earlier = first[item.keyword] {
                report(.duplicateItem, "`\(item.keyword)` is given twice in \(owner)", file: file, at: item.range,
                       label: "given again here", help: "keep one `\(item.keyword)`",
                       notes: [DiagnosticNote(message: "first given here", file: file, range: earlier.range)])
            } else {
                first[item.keyword] = item
            }
        }
    }

    private func reportWrongKind(_ item: Item, appliesTo: String, owner: String, file: String) {
        report(.itemOnWrongKind, "`\(item.keyword)` applies only to \(appliesTo)", file: file, at: item.range,
               label: "\(owner) is not one", help: "remove this item or change the kind")
    }

    private mutating func checkProduct(_ product: ProductDeclaration, file: String, table: SymbolTable) {
        let owner = "product `\(product.name.name)`"
        checkSingleItems(product.items, owner: owner, file: file)
        let kind = product.kind?.value
        var hasPeriod = false
        for item in product.items {
            switch item.kind {
            case .period:
                hasPeriod = true
                if let kind, kind != .subscription {
                    reportWrongKind(item, appliesTo: "subscriptions", owner: owner, file: file)
                }
            case .group:
                if let kind, kind != .subscription {
                    reportWrongKind(item, appliesTo: "subscriptions", owner: owner, file: file)
                }
            case .duration(let n, let unit):
                if let kind, kind != .nonRenewing {
                    reportWrongKind(item, appliesTo: "non-renewing products", owner: owner, file: file)
                }
                requirePositive(n, "a duration", file: file)
                checkDurationLimit(n, unit, file: file)
            case .grant(let g):
                checkGrant(g, file: file, table: table)
            default:
                break
            }
        }
        if kind == .subscription, !hasPeriod, !context.hasSyntaxError(in: file, product.range) {
            report(.subscriptionWithoutPeriod, "subscription `\(product.name.name)` has no `period`", file: file,
                   at: product.name.range, label: "needs a billing period",
                   help: "add `period month` (or week, quarter, half_year, year)")
        }
    }

    private mutating func checkFeature(_ feature: FeatureDeclaration, file: String, table: SymbolTable) {
        let owner = "feature `\(feature.name.name)`"
        checkSingleItems(feature.items, owner: owner, file: file)
        if let requires = feature.requires {
            if feature.kind?.value == .metered {
                report(.requiresOnMetered, "`requires` applies only to boolean features", file: file,
                       at: requires.range, label: "`\(feature.name.name)` is metered",
                       help: "grant the metered feature from an entitlement whose constraint says who gets it")
            } else {
                checkConstraint(requires, file: file, table: table)
            }
        }
        if feature.kind?.value == .boolean {
            for item in feature.items {
                switch item.kind {
                case .usage, .event, .unit:
                    reportWrongKind(item, appliesTo: "metered features", owner: owner, file: file)
                default: break
                }
            }
        }
    }

    private mutating func checkCredits(_ credits: CreditsDeclaration, file: String, table: SymbolTable) {
        checkSingleItems(credits.items, owner: "credit system `\(credits.name.name)`", file: file)
        var converted: [String: SourceRange] = [:]
        for item in credits.items {
            guard case .conversion(let feature, let amount, let cost) = item.kind else { continue }
            requirePositive(amount, "a conversion amount", file: file)
            requirePositive(cost, "a conversion's credits", file: file)
            if let first = converted[feature.name] {
                report(.duplicateConversion,
                       "`\(feature.name)` is converted twice in credit system `\(credits.name.name)`",
                       file: file, at: feature.range, label: "converted again here",
                       help: "keep one conversion per feature",
                       notes: [DiagnosticNote(message: "first conversion", file: file, range: first)])
            } else {
                converted[feature.name] = feature.range
            }
            guard let symbol = table[feature.name] else {
                reportUnknown(feature, noun: "feature", file: file, table: table) {
                    if case .feature(.metered?, _) = $0 { true } else { false }
                }
                continue
            }
            switch symbol.kind {
            case .feature(.metered?, _), .feature(nil, _):
                break
            case .feature(.boolean?, _), .credits:
                report(.conversionOfNonMetered,
                       "credit system `\(credits.name.name)` converts `\(feature.name)`, "
                           + symbol.kind.detail.withIndefiniteArticle,
                       file: file, at: feature.range, label: "not a metered feature",
                       help: "credits pay for metered features only; remove this conversion")
            case .product, .entitlement:
                report(.wrongKindOfName,
                       "`\(feature.name)` is \(symbol.kind.detail.withIndefiniteArticle), not a feature",
                       file: file, at: feature.range, label: "expected a metered feature",
                       help: "a conversion reads `FEATURE AMOUNT = CREDITS`")
            }
        }
    }

    private mutating func checkEntitlement(_ entitlement: EntitlementDeclaration, file: String, table: SymbolTable) {
        checkSingleItems(entitlement.items, owner: "entitlement `\(entitlement.name.name)`", file: file)
        checkConstraint(entitlement.expression, file: file, table: table)
        for item in entitlement.items {
            if case .grant(let g) = item.kind { checkGrant(g, file: file, table: table) }
        }
    }

    /// The longest length of each unit (of a `duration` or an `expires after`): 100 years. In
    /// days, 100 years with 25 leap days (36,525); in weeks, as many whole weeks as fit in that.
    /// INVARIANT: the graph loader (`ArtifactDecoder`) refuses exactly the longer ones, so every
    /// compiled graph loads.
    static let longestDuration: [DurationUnit: Int64] = [.years: 100, .months: 1_200, .weeks: 5_217, .days: 36_525]

    /// A `duration` or an `expires after` is at most 100 years (E222). `never`: how to say "it never
    /// lapses", for the help.
    func checkDurationLimit(_ n: IntegerLiteral, _ unit: Located<DurationUnit>, file: String,
                            never: String = "a purchase that never lapses is a `non_consumable` product") {
        guard let longest = Checker.longestDuration[unit.value], n.value > longest else { return }
        let most = unit.value == .years ? "100 years" : "\(longest.grouped(by: ",")) \(unit.value.rawValue) (100 years)"
        let written = "\(n.value.grouped(by: "_")) \(unit.value.rawValue)"
        report(.durationTooLong, "`\(written)` is longer than 100 years", file: file, at: n.range.through(unit.range),
               label: "at most \(most)", help: never)
    }

    func requirePositive(_ n: IntegerLiteral, _ what: String, file: String) {
        if n.value == 0 {
            report(.numberNotPositive, "\(what) must be at least 1", file: file, at: n.range, label: "zero")
        }
    }

    // MARK: - Constraints

    /// Names in a constraint are products (owned now) or entitlements (active now); `>= N` only
    /// for consumables.
    mutating func checkConstraint(_ expression: Expression, file: String, table: SymbolTable) {
        switch expression {
        case .reference(let id):
            guard let symbol = table[id.name] else {
                reportUnknown(id, fallback: "product or entitlement", file: file, table: table) {
                    $0.isProduct || $0 == .entitlement
                }
                return
            }
            checkConstraintName(id, symbol, file: file)
        case .atLeast(let id, let n):
            guard let symbol = table[id.name] else {
                reportUnknown(id, noun: "product", file: file, table: table) { $0 == .product(.consumable) }
                return
            }
            guard checkConstraintName(id, symbol, file: file) else { return }
            if symbol.kind != .product(.consumable), symbol.kind != .product(nil) {
                report(.quantityOnNonConsumable,
                       "`\(id.name)` is \(symbol.kind.detail.withIndefiniteArticle); "
                           + "`>= N` counts units of a consumable",
                       file: file, at: expression.range, label: "not a consumable",
                       help: "write `\(id.name)` alone to require it")
            }
            if n.value == 0 {
                report(.numberNotPositive, "a quantity after `>=` must be at least 1", file: file, at: n.range,
                       label: "`>= 0` always holds", help: "write `\(id.name) >= 1`, or `\(id.name)` alone")
            }
        case .purchased(let id, let date):
            checkInstant(date.instant, file: file)
            guard let symbol = table[id.name] else {
                reportUnknown(id, noun: "product", file: file, table: table) { $0.isProduct }
                return
            }
            guard checkConstraintName(id, symbol, file: file) else { return }
            if symbol.kind == .entitlement {
                report(.dateOnEntitlement,
                       "`purchased \(date.relation.value.rawValue)` qualifies a product; "
                       + "`\(id.name)` is an entitlement",
                       file: file, at: date.relation.range, label: "entitlements are not bought",
                       help: "qualify the products in the constraint of `\(id.name)`")
            }
        case .not(let e, _):
            checkConstraint(e, file: file, table: table)
        case .and(let terms), .or(let terms):
            for t in terms { checkConstraint(t, file: file, table: table) }
        case .everyone, .error:
            break
        }
    }

    @discardableResult
    private func checkConstraintName(_ id: Identifier, _ symbol: Symbol, file: String) -> Bool {
        switch symbol.kind {
        case .product, .entitlement:
            return true
        case .feature, .credits:
            report(.wrongKindOfName,
                   "`\(id.name)` is \(symbol.kind.detail.withIndefiniteArticle); "
                       + "constraints name products and entitlements",
                   file: file, at: id.range, label: "not a product or entitlement",
                   help: "to depend on a feature, name the entitlement or product that grants it")
            return false
        }
    }
}
