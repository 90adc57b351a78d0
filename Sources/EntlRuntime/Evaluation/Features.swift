/// §4: the decisions on features and credit systems. A boolean feature is allowed by a grant whose
/// source counts or by its requirement; a metered one by its balance (§5), or by credits paying the
/// shortfall, in the declaration order of the systems.
extension Evaluation {
    public func feature(_ f: Int, required: Int64) -> FeatureResult {
        var result = FeatureResult()
        feature(f, required: required, into: &result)
        return result
    }

    /// `feature(_:required:)`, answered into `result`: a `FeatureResult()`, or one emptied since
    /// (`reset()`; only the fields this answer has are written). A batch keeps one result from line
    /// to line, written in place, and empties it once the line is written (its reason may hold this
    /// evaluation, and with it the tables the next line is read into).
    package func feature(_ f: Int, required: Int64, into result: inout FeatureResult) {
        result.update { result in
            result.name = graph.features[f].name
            result.kind = graph.features[f].kind
            result.displayName = graph.features[f].displayName
            result.validUntil = earliest(nextChange(watching: graph.features[f].watchedProducts), nextStateGrantChange)
        }
        if graph.features[f].kind == .boolean {
            decideBoolean(f, &result)
        } else {
            decideMetered(f, required: required, &result)
            if graph.features[f].unitSingular != nil || graph.features[f].unitPlural != nil {
                result.unit = graph.features[f].unit(result.balance ?? 2)
            }
        }
        if unlocks, !result.allowed {
            // §4.6: only products named positively can allow it — unless a state grant keeps an
            // entitlement active: buying a product named under a `not` then hands the entitlement
            // to the grant, whose allowances are fresh (another grant instance, §5).
            let handsOver = result.kind != .boolean && state.grants.contains { $0.target.isEntitlement }
            let candidates = handsOver ? graph.features[f].watchedProducts : graph.features[f].unlockCandidates
            result.unlockedBy = unlockingProducts(candidates) { $0.feature(f, required: required).allowed }
        }
    }

    private func decideBoolean(_ f: Int, _ result: inout FeatureResult) {
        // The feature's fields read where they are (the feature read whole would be a copy of it).
        let requirement = graph.features[f].requires == nil ? nil : truth(of: graph.features[f].requiresProgram)
        // A grant counts when its product is owned (once is enough) or its entitlement active.
        var granting: Grant.Source?
        var uncertain = false
        for g in graph.features[f].grants {
            let t: Truth = switch g.source {
            case .product(let p): products[p].truth
            case .entitlement(let e): entitlementValue(e).0
            case .state: .false  // INVARIANT: a graph holds no state grants
            }
            if t == .true, granting == nil { granting = g.source }
            if t == .unknown { uncertain = true }
        }
        // A state grant of the feature, when no grant of the rules does.
        if granting == nil, let i = grantingStateGrant(ofFeature: f) { granting = .state(i) }
        switch granting {
        case .state(let i)?:
            result.decision = .allowed
            result.via = .direct
            let name = stateGrantName(i)
            result.why = Reason { text in
                text.write("granted to this customer (")
                text.write(code: name)
                text.write(UInt8(ascii: ")"))
            }
        case .product(let p)?:
            result.decision = .allowed
            result.via = .direct
            let name = graph.products[p].name
            result.why = Reason { text in
                text.write("granted by product ")
                text.write(code: name)
            }
        case .entitlement(let e)?:
            result.decision = .allowed
            result.via = .direct
            // The product behind it is found only if the reason is read (most checks never do).
            result.why = Reason { [self] text in
                let behind: String? = switch representative(of: e) {
                case .purchase(let j)?: graph.products[Int(purchaseProduct[j])].name
                case .override(let p)?: graph.products[p].name
                case .stateGrant(let i)?: stateGrantName(i)
                case nil: nil
                }
                text.write("granted by entitlement ")
                text.write(code: graph.entitlements[e].name)
                if let behind {
                    text.write(" (")
                    text.write(string: behind)
                    text.write(UInt8(ascii: ")"))
                }
            }
        case nil:
            if requirement == .true {
                result.decision = .allowed
                result.via = .direct
                result.why = "its requirement holds"
            } else if uncertain || requirement == .unknown {
                result.decision = .undetermined
                result.reason = "it depends on \(unknownProducts(graph.features[f].watchedProducts))"
            } else {
                result.why = graph.features[f].requires == nil
                    ? "no owned product or active entitlement grants it"
                    : "no owned product or active entitlement grants it, and its requirement does not hold"
            }
        }
        if explains {
            result.explanation = ["feature `\(graph.features[f].name)`: \(result.decision.rawValue)"]
            for c in candidates(of: f) {
                let (name, kind) = sourceName(c)
                result.explanation.append("  granted by \(kind) `\(name)`" + (c.certain ? "" : " (uncertain)"))
            }
            if let requirement { result.explanation.append("  requirement: \(requirement.rawValue)") }
            result.explanation += explainProducts(graph.features[f].watchedProducts)
        }
    }

    /// What the credit systems listing feature `f` would leave uncovered of `rest` units, paying as
    /// the spill does (§5): the first that covers it all pays it, else each in turn what it can.
    /// `optimistic`: with the uncertain candidates' balances (`high`).
    func spillLeft(_ f: Int, _ rest: Int64, optimistic: Bool, held: inout HeldReplays) -> Int64 {
        let routes = graph.features[f].creditRoutes
        let balances = routes.map { r in
            let b = creditBalance(r.system, held: &held)
            return optimistic ? b.high : b.low
        }
        for (r, b) in zip(routes, balances)
        where b.map({ $0.covers(rest.multipliedDividedRoundingUp(by: r.credits, dividedBy: r.amount)) }) ?? true {
            return 0
        }
        var left = rest
        for (r, b) in zip(routes, balances) where left > 0 {
            let balance = b ?? .max
            if balance.covers(left.multipliedDividedRoundingUp(by: r.credits, dividedBy: r.amount)) { return 0 }
            left -= balance.multipliedDividedRoundingDown(by: r.amount, dividedBy: r.credits)
        }
        return left
    }

    /// "`zbucks`, whose status is unknown": the products among `ps` with something unknown; else
    /// (a `purchased before`/`since` of a purchase with no date, §1) "when `pro` was bought".
    func unknownProducts(_ ps: [Int]) -> String {
        let names = ps.filter { products[$0].hasUnknown }.map { "`\(graph.products[$0].name)`" }
        if !names.isEmpty { return "\(names.prefix(3).joined(separator: ", ")), whose status is unknown" }
        let undated = ps.filter { p in purchases(of: p).contains { state.purchases[$0].purchasedAt == nil } }
            .map { "`\(graph.products[$0].name)`" }
        if undated.isEmpty { return "purchases whose status is unknown" }
        return "when \(undated.prefix(3).joined(separator: ", ")) was bought: the state gives no `purchased_at`"
    }

    private func decideMetered(_ f: Int, required: Int64, _ result: inout FeatureResult) {
        // The fields written in place, made the result's own once (not checked at every write).
        result.update { result in decideMetered(f, required: required, &result) }
    }

    private func decideMetered(_ f: Int, required: Int64, _ result: inout FeatureResult.Fields) {
        // The replays of the feature's credit component, read once for it and its credit systems.
        var held = HeldReplays()
        let direct = meteredBalance(f, held: &held)
        result.required = required
        result.balance = direct.low
        result.unlimited = direct.low == nil
        result.overage = direct.overage
        result.overdrawn = direct.overdrawn
        result.sources = direct.sources
        // §6: the inputs of the feature's balance, and those of every credit system that can pay
        // for it (whether or not it is needed now).
        result.validUntil = earliest(earliest(result.validUntil, direct.inputsChange), pastReadingChange(of: f))
        for r in graph.features[f].creditRoutes.indices {  // by index, as `forEachCandidate` reads grants
            let system = graph.features[f].creditRoutes[r].system
            result.validUntil = earliest(result.validUntil, meteredInputsChange(system, held: &held))
        }
        var trail: [String] = []
        if explains {
            trail.append("feature `\(graph.features[f].name)` (\(graph.features[f].kind.rawValue)), \(required) needed")
            for s in direct.sources {
                let amount = s.allowance.map(String.init) ?? "unlimited"
                let per = s.interval.map { " per \($0.rawValue)" }
                    ?? (graph.features[f].kind == .continuous ? "" : " once")
                let product = s.product.map { $0 == s.grant ? "" : " (\($0))" } ?? ""
                let window = s.windowStart.map { ", window \($0) – \(s.resetsAt.map(\.description) ?? "")" } ?? ""
                trail.append("  grant from \(s.kind) `\(s.grant)`\(product): "
                             + "\(amount)\(per)\(s.certain ? "" : " (uncertain)")" + window)
            }
            trail += direct.trail
            let high = direct.high.map(String.init) ?? "unlimited"
            trail.append("  balance: \(direct.low.map(String.init) ?? "unlimited")"
                         + (direct.hasUncertain ? " (up to \(high) if unknown purchases count)" : ""))
        }
        // The reasons capture the graph (one reference) and numbers, never the evaluation.
        let graph = self.graph
        guard let low = direct.low, low < required else {
            result.decision = .allowed
            result.via = .direct
            result.why = Reason(BalanceReason(feature: Int32(f), left: direct.low, required: required), of: graph)
            if explains {
                trail.append("  → allowed via direct")
                result.explanation = trail + explainProducts(graph.features[f].watchedProducts)
            }
            return
        }
        // §4.4: credits pay the shortfall, in the declaration order of the systems. A continuous
        // level above the allowances is part of it: credits never pay a level, so the rest of what
        // they would allow stands on them alone (10 credits had let a customer 90 seats over add
        // one more, and another, never spent).
        let shortfall = (required - low).addingSaturating(direct.excess)
        var uncertain = direct.high.map { $0 >= required } ?? true
        var asked: BalanceReason.Credits?  // the credit system the result reports, for the reason
        // §4.6 (not allowed): the most units one credit system could pay, and all of them together.
        var payable: Int64 = 0, spill: Int64 = 0
        for r in graph.features[f].creditRoutes.indices {
            let route = graph.features[f].creditRoutes[r]
            let need = shortfall.multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
            let system = creditBalance(route.system, held: &held)
            let units = (system.low ?? .max).multipliedDividedRoundingDown(by: route.amount,
                                                                           dividedBy: route.credits)
            (payable, spill) = (max(payable, units), spill.addingSaturating(units))
            let systemName = graph.features[route.system].name
            let covers = system.low.map { $0.covers(need) } ?? true
            if explains {
                let feature = graph.features[f]
                trail.append("  credits `\(systemName)`: \(route.amount) \(feature.unit(route.amount)) = "
                             + "\(route.credits) credits, so the \(shortfall) \(feature.unit(shortfall)) missing "
                             + (direct.excess > 0 ? "(\(direct.excess) over the allowance) " : "")
                             + "cost \(need); balance \(system.low.map(String.init) ?? "unlimited")")
                trail += meteredBalance(route.system, sources: false, held: &held).trail
            }
            if result.creditSystem == nil || covers {
                result.creditSystem = systemName
                result.creditsRequired = need
                result.creditBalance = system.low
                asked = BalanceReason.Credits(system: Int32(route.system), need: need, balance: system.low)
            }
            if covers {
                result.decision = .allowed
                result.via = .credits
                let payer = route.system, excess = direct.excess
                result.why = Reason { text in
                    text.write(amount: low, of: f, in: graph)
                    text.write(" left, so ")
                    text.write(amount: need, of: payer, in: graph)
                    text.write(" from ")
                    text.write(code: graph.features[payer].name)
                    text.write(low > 0 ? " pay for the other " : " pay for ")
                    text.write(grouped: shortfall)
                    if excess > 0 {
                        text.write(" (")
                        text.write(grouped: excess)
                        text.write(" already over the allowance)")
                    }
                }
                break
            }
            // §4.5: the optimistic balances, with the shortfall after the optimistic direct one.
            if let high = direct.high, high < required {
                let optimisticNeed = (required - high).addingSaturating(direct.excessHigh)
                    .multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
                if system.high.map({ $0.covers(optimisticNeed) }) ?? true { uncertain = true }
            }
        }
        // §5 soft limits: allowed via overage when recording the use now would be covered in full —
        // the balance, the credits as the spill pays, then the overdraft; undetermined when that
        // holds only with the uncertain candidates too.
        if result.decision != .allowed, direct.hasOverage {
            let (left, overdraft) = (spillLeft(f, required - low, optimistic: false, held: &held), direct.overdraftLow)
            if direct.hasCertainOverage, overdraft.map({ $0 >= left }) ?? true {
                result.decision = .allowed
                result.via = .overage
                let paid = required - low - left
                result.why = Reason { text in
                    text.write(amount: low, of: f, in: graph)
                    text.write(" left, so ")
                    guard left > 0 else {
                        // No one system could pay the rest; together they do, as a recorded use spills.
                        text.write("credits from more than one system pay for ")
                        text.write(low > 0 ? "the other " : "")
                        text.write(grouped: paid)
                        return text.write(" (nothing is overdrawn)")
                    }
                    text.write(amount: left, of: f, in: graph)
                    text.write(left == 1 ? " goes" : " go")
                    text.write(" over the allowance (overdrawn, billable)")
                }
            } else if let high = direct.high, high < required,
                      direct.overdraftHigh.map({ $0 >= spillLeft(f, required - high, optimistic: true, held: &held) })
                        ?? true {
                uncertain = true
            }
        }
        if result.decision != .allowed {
            result.decision = uncertain ? .undetermined : .denied
            // §4.6: the fewest more units that would allow it, with what the best credit system
            // could pay (credits pay a whole shortfall or nothing, so it must cover the rest; no
            // system covered it, so the loop above saw every one). With a soft limit, the spill pays
            // from every system and the overdraft takes the rest.
            if direct.hasCertainOverage, let overdraft = direct.overdraftLow {
                payable = max(payable, spill.addingSaturating(overdraft))
            }
            result.shortfall = max(1, shortfall.subtractingSaturating(payable))
            let why = BalanceReason(feature: Int32(f), left: low, required: required, credits: asked,
                                    excess: direct.excess)
            if uncertain {
                let depends = "; it depends on \(unknownProducts(graph.features[f].watchedProducts))"
                result.why = Reason { text in
                    text.write(why, in: graph)
                    text.write(string: depends)
                }
            } else {
                result.why = Reason(why, of: graph)
            }
        }
        if explains {
            trail.append("  → \(result.decision.rawValue)" + (result.via.map { " via \($0.rawValue)" } ?? ""))
            result.explanation = trail + explainProducts(graph.features[f].watchedProducts)
        }
    }
}
