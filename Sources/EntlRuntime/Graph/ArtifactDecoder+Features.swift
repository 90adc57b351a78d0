/// The features, credit systems and grants of an artifact's environment (`ArtifactDecoder`).
extension EnvironmentReader {
    // MARK: - Features and grants

    /// A feature or credit system (`f` is checked to be an object with `featureKeys`).
    mutating func feature(_ f: ArtifactNode) throws(RuleGraphArtifactError) {
        let name = try declare(f)
        let kind = featureKinds[features.count]
        var event: String?
        if let e = try f.optional("event") {
            guard kind == .singleUse || kind == .continuous else { throw e.fail(D.onlyOnMetered("an event", kind)) }
            let written = try e.string()
            guard events.insert(written).inserted else { throw e.fail("duplicate event name \"\(written)\"") }
            event = written
        }
        let singular = try f.member("unit_singular"), plural = try f.member("unit_plural")
        if kind == .boolean, let unit = [singular, plural].first(where: { !$0.isNull }) {
            throw unit.fail(D.onlyOnMetered("a unit", kind))
        }
        guard singular.isNull == plural.isNull else { throw (singular.isNull ? singular : plural).fail(D.unitHalf) }
        var requires: Constraint?
        if let r = try f.optional("requires") {
            guard kind == .boolean else { throw r.fail("only a boolean feature has a requirement") }
            requires = try constraint(r).0
        }
        var grants: [Grant] = []
        for g in try f.member("grants").array() {
            let grant = try self.grant(g, of: kind)
            if let previous = grants.last, grant.order < previous.order {
                throw try g.member("order").fail(D.grantOutOfOrder(grant.order, after: previous.order))
            }
            grants.append(grant)
        }
        var conversions: [Conversion] = []
        let conversionNodes = try f.member("conversions").array()
        if kind != .credits, let first = conversionNodes.first {
            throw first.fail("only a credit system has conversions")
        }
        for c in conversionNodes {
            let o = try c.object(["feature", "amount", "credits"])
            let targetNode = try o.member("feature")
            let target = try targetNode.index(below: featureKinds.count, of: "features")
            guard featureKinds[target] == .singleUse || featureKinds[target] == .continuous else {
                throw targetNode.fail(D.convertsNonMetered(featureKinds[target]))
            }
            guard !conversions.contains(where: { $0.feature == target }) else {
                throw targetNode.fail(D.convertedTwice(featureNames[target]))
            }
            conversions.append(Conversion(feature: target, amount: try o.member("amount").int(1...D.maxAmount),
                                          credits: try o.member("credits").int(1...D.maxAmount)))
        }
        features.append(Feature(name: name, displayName: try f.optionalString("display_name"),
                                docs: try f.optionalString("docs"), kind: kind, event: event,
                                unitSingular: try singular.isNull ? nil : singular.string(),
                                unitPlural: try plural.isNull ? nil : plural.string(), requires: requires,
                                grants: grants, conversions: conversions))
    }

    /// `grants FEATURE [AMOUNT | unlimited] [per I] [carry [up to N]] [overage [up to N]]
    /// [expires after N UNIT] [priority N]` of a feature of `kind`.
    mutating func grant(_ node: ArtifactNode, of kind: FeatureKind) throws(RuleGraphArtifactError) -> Grant {
        let g = try node.object(D.grantKeys, optional: D.optionalGrantKeys)
        let sourceNode = try g.member("source")
        let source: Grant.Source
        if case .object(let m) = sourceNode.value, m.first?.key == "product" {
            source = .product(try sourceNode.object(["product"]).member("product")
                .index(below: products.count, of: "products"))
        } else {
            source = .entitlement(try sourceNode.object(["entitlement"]).member("entitlement")
                .index(below: entitlementCount, of: "entitlements"))
        }
        let amountNode = try g.member("amount")
        let amount: Grant.Amount
        switch amountNode.value {
        case .null: amount = .none
        case .string("unlimited"): amount = .unlimited
        default: amount = .count(try amountNode.int(1...D.maxAmount))
        }
        guard (amount == .none) == (kind == .boolean) else {
            throw amountNode.fail(kind == .boolean ? "a boolean feature's grant has no amount" : D.missingAmount(kind))
        }
        // Windows are for what is used up: single-use features and credit systems.
        let windowed = kind == .singleUse || kind == .credits
        let intervalNode = try g.optional("interval")
        if let intervalNode, !windowed { throw intervalNode.fail(D.noWindows("`per`", kind)) }
        let carryNode = try g.member("carry")
        let carry: Grant.Carry?
        switch carryNode.value {
        case .null: carry = nil
        case .string("uncapped"): carry = .uncapped
        default: carry = .upTo(try carryNode.int(1...D.maxAmount))
        }
        if carry != nil, !windowed { throw carryNode.fail(D.noWindows("`carry`", kind)) }
        var overage: Grant.Overage?
        if let o = g.present("overage") {
            guard kind == .singleUse else { throw o.fail(D.noOverdraft(kind)) }
            overage = o.value == .string("unbounded") ? .unbounded : .upTo(try o.int(1...D.maxAmount))
        }
        var expiresAfter: CalendarStep?
        if let e = g.present("expires_after") {
            guard windowed else { throw e.fail(D.noLapse(kind)) }
            guard intervalNode == nil else { throw e.fail(D.lotWithReset) }
            guard case .count = amount else { throw e.fail(D.unlimitedLot) }
            expiresAfter = try Self.duration(e)
        }
        let orderNode = try g.member("order")
        let order = Int(try orderNode.int(0...Int64(max(grantCount - 1, 0))))
        guard grantOrders.insert(order).inserted else { throw g.fail("grant order \(order) is used twice") }
        return Grant(source: source, amount: amount, interval: try intervalNode?.rawValue(Interval.self), carry: carry,
                     overage: overage, expiresAfter: expiresAfter,
                     priority: try g.member("priority").int(0...D.maxAmount), order: order)
    }
}

// MARK: - Messages

extension ArtifactDecoder {
    static func noOverdraft(_ kind: FeatureKind) -> String {
        "`overage` applies only to grants of single-use features, not of \(kind.described)"
    }

    static func noLapse(_ kind: FeatureKind) -> String {
        "`expires after` applies only to grants of single-use features and credit systems, not of \(kind.described)"
    }

    static let lotWithReset = "`expires after` applies only to a grant without `per` (a lot is granted once)"

    static let unlimitedLot = "`expires after` applies only to a grant with an amount (an unlimited grant cannot lapse)"
}
