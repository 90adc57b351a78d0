import EntlSupport
import EntlSyntax

extension Checker {
    // MARK: - Grants

    /// `grants FEATURE [AMOUNT | unlimited] [per I] [carry [up to N]] [overage [up to N]]
    /// [expires after N UNIT] [priority N]` against the kind of FEATURE.
    mutating func checkGrant(_ grant: Grant, file: String, table: SymbolTable) {
        guard let symbol = table[grant.feature.name] else {
            reportUnknown(grant.feature, fallback: "feature", file: file, table: table, filter: \.grantable)
            return
        }
        guard !symbol.kind.grantable else {
            checkGrantTerms(grant, symbol, file: file)
            return
        }
        report(.wrongKindOfName,
               "`\(grant.feature.name)` is \(symbol.kind.detail.withIndefiniteArticle), not a feature or credit system",
               file: file, at: grant.feature.range, label: "cannot be granted",
               help: "`grants` names a feature or a credit system")
    }

    /// A grant's amount and clauses against the kind of what it grants (a feature or credit
    /// system): the rules of a rule set's grants, and of a test's `grant` of a feature (`keyword`,
    /// for the help).
    func checkGrantTerms(_ grant: Grant, _ symbol: Symbol, file: String, keyword: String = "grants") {
        let name = grant.feature.name
        if case .count(let n) = grant.amount { requirePositive(n, "a grant amount", file: file) }
        if let cap = grant.carry?.cap { requirePositive(cap, "a carry cap", file: file) }
        if let cap = grant.overage?.cap { requirePositive(cap, "an overage cap", file: file) }
        if let expiry = grant.expiresAfter {
            requirePositive(expiry.count, "the time after which a grant expires", file: file)
            checkDurationLimit(expiry.count, expiry.unit, file: file,
                               never: "a grant without `expires after` never lapses")
        }
        switch symbol.kind {
        case .feature(.boolean?, _):
            if let amount = grant.amount {
                report(.amountOnBooleanGrant, "boolean feature `\(name)` takes no amount", file: file, at: amount.range,
                       label: "remove this", help: "write `\(keyword) \(name)`")
            }
            for (clause, range) in [("per", grant.per?.range), ("carry", grant.carry?.range)] {
                if let range {
                    report(.amountOnBooleanGrant, "boolean feature `\(name)` takes no `\(clause)`", file: file,
                           at: range, label: "remove this", help: "write `\(keyword) \(name)`")
                }
            }
        case .feature(.metered?, .continuous):
            if grant.amount == nil { reportMissingAmount(grant, symbol, file: file, keyword: keyword) }
            for (clause, range) in [("per", grant.per?.range), ("carry", grant.carry?.range)] {
                if let range {
                    report(.windowOnContinuousGrant, "`\(clause)` on continuous feature `\(name)`", file: file,
                           at: range, label: "a level has no windows",
                           help: "continuous features (seats, storage) grant a fixed allowance; remove `\(clause)`")
                }
            }
        case .feature(.metered?, .singleUse), .credits:
            if grant.amount == nil { reportMissingAmount(grant, symbol, file: file, keyword: keyword) }
        default:
            return
        }
        if let overage = grant.overage, symbol.kind != Symbol.Kind.feature(.metered, .singleUse) {
            report(.overageOnWrongKind, "`overage` on \(symbol.kind.detail) `\(name)`", file: file, at: overage.range,
                   label: Checker.noOverdraft(symbol.kind),
                   help: "only single-use features (API calls, exports) have soft limits; remove `overage`")
        }
        if let expiry = grant.expiresAfter { checkExpiry(expiry, of: grant, symbol, file: file) }
    }

    /// `expires after` makes a lot: a counted lifetime allowance of something used up.
    private func checkExpiry(_ expiry: Grant.Expiry, of grant: Grant, _ symbol: Symbol, file: String) {
        let name = grant.feature.name
        let problem: (message: String, label: String, help: String)?
        if case .feature(let kind, let usage) = symbol.kind, kind == .boolean || usage == .continuous {
            problem = ("`expires after` on \(symbol.kind.detail) `\(name)`",
                       "only what is used up lapses",
                       "grant it from an entitlement or product whose purchase ends, and remove `expires after`")
        } else if let per = grant.per {
            problem = ("`expires after` together with `per \(per.value.rawValue)`", "a lot is granted once",
                       "a lot lapses, a renewing allowance resets: remove `per` or `expires after`")
        } else if case .unlimited? = grant.amount {
            problem = ("an unlimited grant cannot expire", "nothing to lapse",
                       "a pass that ends is a `non_renewing` product with a `duration`; "
                       + "or give an amount instead of `unlimited`")
        } else {
            problem = nil
        }
        guard let problem else { return }
        report(.expiryOnWrongGrant, problem.message, file: file, at: expiry.range, label: problem.label,
               help: problem.help)
    }

    /// Why a grant of `kind` cannot be overdrawn, for the label.
    private static func noOverdraft(_ kind: Symbol.Kind) -> String {
        switch kind {
        case .credits: "credits are prepaid"
        case .feature(.metered?, .continuous): "a level is not used up"
        default: "nothing to overdraw"
        }
    }

    private func reportMissingAmount(_ grant: Grant, _ symbol: Symbol, file: String, keyword: String) {
        let name = grant.feature.name
        report(.missingGrantAmount, "\(symbol.kind.detail) `\(name)` needs an amount or `unlimited`", file: file,
               at: grant.feature.range, label: "how much?",
               help: "write e.g. `\(keyword) \(name) 10_000 per month` or `\(keyword) \(name) unlimited`")
    }
}
