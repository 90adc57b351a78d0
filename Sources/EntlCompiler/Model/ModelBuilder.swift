import EntlSyntax

/// Builds the model from the checker's declarations: each block's items sorted into typed
/// fields, then per environment each name resolved. With the checker, the only code that reads
/// a block's items (`Item.Kind`) or a test's.
enum ModelBuilder {
    /// The typed declarations, one per site (before any name is resolved: the symbol tables are
    /// built from them).
    static func declarations(_ sites: [DeclarationSite]) -> [RuleModel.Declaration] {
        sites.enumerated().map { index, s in
            let site = RuleModel.Site(index: index, file: s.file, environment: s.environment,
                                      range: s.declaration.range)
            return declaration(s.declaration, site)
        }
    }

    /// The model: the declarations and each environment's resolution of its names.
    static func model(_ declarations: [RuleModel.Declaration], tables: [EnvironmentName: SymbolTable]) -> RuleModel {
        var app: String?
        for case .app(let a) in declarations where app == nil { app = a.id.value }
        func symbols(_ env: EnvironmentName) -> SymbolTable { tables[env] ?? SymbolTable(environment: env) }
        let live = EnvironmentModel(environment: .live, symbols: symbols(.live), declarations: declarations)
        // No declaration in an environment block: both environments see the same, in the same order.
        let same = declarations.allSatisfy { $0.site.environment == nil }
        let test = same ? EnvironmentModel(sharing: live, environment: .test, symbols: symbols(.test))
            : EnvironmentModel(environment: .test, symbols: symbols(.test), declarations: declarations)
        return RuleModel(declarations: declarations, app: app, live: live, test: test, sameInEveryEnvironment: same)
    }

    private static func declaration(_ declaration: EntlSyntax.Declaration, _ site: RuleModel.Site)
        -> RuleModel.Declaration
    {
        switch declaration {
        case .app(let a): .app(RuleModel.App(id: a.id, site: site))
        case .product(let p): .product(RuleModel.Product(p, site: site, items: Items(p.items)))
        case .entitlement(let e): .entitlement(RuleModel.Entitlement(e, site: site, items: Items(e.items)))
        case .feature(let f):
            .feature(RuleModel.Feature(name: f.name, docs: f.docs, site: site, creditSystem: false, kind: f.kind,
                                       requires: f.requires, items: Items(f.items)))
        case .credits(let c):
            .feature(RuleModel.Feature(name: c.name, docs: c.docs, site: site, creditSystem: true, kind: nil,
                                       requires: nil, items: Items(c.items)))
        case .test(let t): .test(test(t, site))
        case .environment:
            // INVARIANT: the checker flattens environment blocks into their declarations' sites.
            preconditionFailure("an environment block is not a declaration site")
        }
    }

    /// What a block's items say, sorted into fields; an item given twice (already reported)
    /// keeps the one written last. Which items a block may hold the parser decided.
    struct Items {
        var displayName: StringLiteral?, period: Located<BillingPeriod>?, group: Identifier?
        var duration: RuleModel.Duration?, storeIDs: [RuleModel.StoreID] = [], grants: [Grant] = []
        var usage: Located<Usage>?, event: StringLiteral?, unit: RuleModel.Unit?
        var conversions: [RuleModel.Conversion] = []

        init(_ items: [Item]) {
            for item in items {
                switch item.kind {
                case .displayName(let s): displayName = s
                case .storeID(let store, let id): storeIDs.append(.init(store: store, id: id, range: item.range))
                case .period(let p): period = p
                case .group(let g): group = g
                case .duration(let n, let unit): duration = .init(count: n, unit: unit, range: item.range)
                case .grant(let g): grants.append(g)
                case .usage(let u): usage = u
                case .event(let e): event = e
                case .unit(let one, let many): unit = .init(singular: one, plural: many, range: item.range)
                case .conversion(let feature, let amount, let credits):
                    conversions.append(.init(feature: feature, amount: amount, credits: credits, range: item.range))
                }
            }
        }
    }

    private static func test(_ t: TestDeclaration, _ site: RuleModel.Site) -> RuleModel.Test {
        var environment: EnvironmentName?
        var names: [Identifier] = [], expectations: [Expectation] = []
        var hasInstant = false
        for item in t.items {
            switch item.kind {
            case .env(let e): environment = environment ?? e.value
            case .given(let g): names.append(g.product)
            case .used(let feature, _, _, _), .level(let feature, _, _): names.append(feature)
            case .override(let product, _): names.append(product)
            case .grant(let g): names.append(g.name)
            case .expect(let e):
                expectations.append(e)
                names.append(e.name)
                if case .credits(_, let system?)? = e.via { names.append(system) }
            case .at, .state: hasInstant = true
            case .customerSince: break
            }
        }
        return RuleModel.Test(syntax: t, site: site, environment: environment ?? .live, names: names,
                              hasInstant: hasInstant, expectations: expectations)
    }
}
