import EntlRuntime
import EntlSupport
import EntlSyntax

extension Checker {
    /// Checks a `test` block against the names of its environment: every name resolves to the
    /// right kind, every instant is RFC 3339, amounts fit what they apply to.
    mutating func checkTest(_ test: TestDeclaration, file: String, table: SymbolTable) {
        var firstOnce: [String: SourceRange] = [:]
        for item in test.items {
            let once: String? = switch item.kind {
            case .at: "at"
            case .env: "env"
            case .state: "state"
            case .customerSince: "customer since"
            // Two overrides of one product: the second would win unseen (a review).
            case .override(let product, _): "override \(product.name)"
            default: nil
            }
            if let once {
                if let first = firstOnce[once] {
                    report(.duplicateItem, "`\(once)` is given twice in this test", file: file, at: item.range,
                           label: "given again here",
                           notes: [DiagnosticNote(message: "first given here", file: file, range: first)])
                } else {
                    firstOnce[once] = item.range
                }
            }
            switch item.kind {
            case .at(let instant), .customerSince(let instant):
                checkInstant(instant, file: file)
            case .env, .state:
                break
            case .given(let given):
                guard let product = resolve(given.product, as: "product", file: file, table: table,
                                            where: \.isProduct) else { break }
                for instant in [given.since, given.until, given.graceUntil].compactMap({ $0 }) {
                    checkInstant(instant, file: file)
                }
                if let q = given.quantity, product.kind != .product(.consumable), product.kind != .product(nil) {
                    report(.quantityOnNonConsumable,
                           "`\(product.name)` is \(product.kind.detail.withIndefiniteArticle); "
                           + "only consumables have a quantity",
                           file: file, at: q.range, label: "not a consumable", help: "remove `quantity`")
                }
            case .used(let feature, _, let at, _), .level(let feature, _, let at):
                let isLevel: Bool = if case .level = item.kind { true } else { false }
                if let at { checkInstant(at, file: file) }
                // A use may name a feature by its `event` name.
                guard let symbol = featureWithEvent(feature.name, table: table)
                    ?? resolve(feature, as: "feature", file: file, table: table, where: \.grantable)
                else { break }
                checkUsageTarget(symbol, feature: feature, isLevel: isLevel, file: file)
            case .override(let product, _):
                _ = resolve(product, as: "product", file: file, table: table, where: \.isProduct)
            case .grant(let grant):
                checkTestGrant(grant, file: file, table: table)
            case .expect(let expectation):
                checkExpectation(expectation, file: file, table: table)
            }
        }
    }

    /// The feature whose `event "…"` is `name`, when `name` names no declaration.
    private func featureWithEvent(_ name: String, table: SymbolTable) -> Symbol? {
        guard table[name] == nil else { return nil }
        for site in declarations where site.isVisible(in: table.environment) {
            guard case .feature(let f) = site.declaration else { continue }
            for item in f.items {
                if case .event(let e) = item.kind, e.value == name { return table[f.name.name] }
            }
        }
        return nil
    }

    func checkInstant(_ literal: StringLiteral, file: String) {
        if Instant(rfc3339: literal.value) == nil {
            report(.invalidInstant, "\"\(literal.value)\" \(Instant.rejection(of: literal.value))", file: file,
                   at: literal.range,
                   label: "not an instant", help: "write a date, a time and a zone: \"2026-11-22T12:00:00Z\"")
        }
    }

    /// Looks a name up; reports it unknown, or of the wrong kind when `accepts` refuses it.
    private mutating func resolve(_ id: Identifier, as noun: String, file: String, table: SymbolTable,
                                  where accepts: (Symbol.Kind) -> Bool) -> Symbol? {
        guard let symbol = table[id.name] else {
            reportUnknown(id, noun: noun, file: file, table: table, filter: accepts)
            return nil
        }
        guard accepts(symbol.kind) else {
            report(.wrongKindOfName,
                   "`\(id.name)` is \(symbol.kind.detail.withIndefiniteArticle), not \(noun.withIndefiniteArticle)",
                   file: file, at: id.range, label: "expected \(noun.withIndefiniteArticle)")
            return nil
        }
        return symbol
    }

    private func checkUsageTarget(_ symbol: Symbol, feature: Identifier, isLevel: Bool, file: String) {
        switch (symbol.kind, isLevel) {
        case (.feature(.metered?, .continuous), true), (.feature(.metered?, .singleUse), false), (.credits, false),
             (.feature(nil, _), _):
            return
        case (.feature(.metered?, .continuous), false):
            report(.invalidTestItem, "`\(feature.name)` is continuous; it has a level, not uses", file: file,
                   at: feature.range, label: "continuous feature", help: "write `level \(feature.name) N`")
        case (.feature(.metered?, .singleUse), true), (.credits, true):
            report(.invalidTestItem, "`\(feature.name)` is consumed in uses; it has no level", file: file,
                   at: feature.range, label: "single-use", help: "write `used \(feature.name) N`")
        default:
            report(.invalidTestItem,
                   "`\(feature.name)` is \(symbol.kind.detail.withIndefiniteArticle); "
                   + "only metered features and credit systems are used",
                   file: file, at: feature.range, label: "not metered")
        }
    }

    private mutating func checkExpectation(_ e: Expectation, file: String, table: SymbolTable) {
        guard let symbol = table[e.name.name] else {
            reportUnknown(e.name, file: file, table: table) { _ in true }
            return
        }
        // A feature whose kind did not parse was reported already: accept what it might be.
        let metered = symbol.kind.isMetered || symbol.kind == .feature(nil, .singleUse)
            || symbol.kind == .feature(nil, .continuous)
        if let n = e.amount {
            if !metered {
                report(.invalidTestItem, "a required amount applies only to metered features and credit systems",
                       file: file, at: n.range,
                       label: "`\(e.name.name)` is \(symbol.kind.detail.withIndefiniteArticle)",
                       help: "write `expect \(e.name.name) \(e.decision.value.rawValue)`")
            } else {
                requirePositive(n, "a required amount", file: file)
            }
        }
        if let balance = e.balance, !metered {
            let range: SourceRange = switch balance {
            case .amount(let n): n.range
            case .unlimited(let w): w.range
            }
            report(.invalidTestItem, "`balance` applies only to metered features and credit systems", file: file,
                   at: range, label: "`\(e.name.name)` is \(symbol.kind.detail.withIndefiniteArticle)")
        }
        guard let via = e.via else { return }
        guard case .feature(let kind, let usage) = symbol.kind, kind != .boolean else {
            report(.invalidTestItem, "`via` applies only to metered features", file: file, at: via.range,
                   label: "`\(e.name.name)` is \(symbol.kind.detail.withIndefiniteArticle)")
            return
        }
        if case .overage = via, usage == .continuous {
            report(.invalidTestItem, "`via overage` applies only to single-use features", file: file, at: via.range,
                   label: "`\(e.name.name)` is \(symbol.kind.detail.withIndefiniteArticle)",
                   help: "a continuous feature's level is never overdrawn")
        }
        guard case .credits(_, let system?) = via else { return }
        guard let credits = resolve(system, as: "credit system", file: file, table: table, where: { $0 == .credits }),
              case .credits(let decl) = declarations[credits.site].declaration else { return }
        let lists = decl.items.contains {
            if case .conversion(let f, _, _) = $0.kind { f.name == e.name.name } else { false }
        }
        if !lists {
            report(.invalidTestItem, "credit system `\(system.name)` does not convert `\(e.name.name)`", file: file,
                   at: system.range, label: "cannot pay for `\(e.name.name)`",
                   help: "add `\(e.name.name) 1 = N` to credit system `\(system.name)`, or name another system")
        }
    }

    /// `grant NAME …`: a grant to the tested customer, as a state's `grants` holds it. An
    /// entitlement's grant takes no amount, `per` or `overage`; a feature's or credit system's
    /// follows the rules of a rule set's grant of it.
    private mutating func checkTestGrant(_ grant: TestGrant, file: String, table: SymbolTable) {
        for instant in [grant.from, grant.until].compactMap({ $0 }) { checkInstant(instant, file: file) }
        if let from = grant.from.flatMap({ Instant(rfc3339: $0.value) }), let until = grant.until,
           let end = Instant(rfc3339: until.value), end <= from {
            report(.invalidTestItem, "the grant ends before it starts", file: file, at: until.range,
                   label: "not after `from`", help: "a grant counts over [from, until): give a later `until`")
        }
        guard let symbol = resolve(grant.name, as: "entitlement, feature or credit system", file: file, table: table,
                                   where: { $0 == .entitlement || $0.grantable }) else { return }
        guard symbol.kind == .entitlement else {
            checkGrantTerms(Grant(feature: grant.name, amount: grant.amount, per: grant.per, overage: grant.overage,
                                  range: grant.name.range), symbol, file: file, keyword: "grant")
            return
        }
        let terms: [(String, SourceRange?)] = [("amount", grant.amount?.range), ("`per`", grant.per?.range),
                                               ("`overage`", grant.overage?.range)]
        for case let (what, range?) in terms {
            report(.invalidTestItem, "an entitlement's grant takes no \(what)", file: file, at: range,
                   label: "`\(grant.name.name)` is an entitlement",
                   help: "a grant makes the entitlement active; write `grant \(grant.name.name)` with `from`/`until`")
        }
    }
}
