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
        func environment(_ env: EnvironmentName) -> EnvironmentModel {
            let sites = declarations.indices.filter { i in
                let environment = declarations[i].site.environment
                return environment == nil || environment == env
            }
            return EnvironmentModel(environment: env, symbols: tables[env] ?? SymbolTable(environment: env),
                                    declarations: declarations, sites: sites)
        }
        return RuleModel(declarations: declarations, app: app, live: environment(.live), test: environment(.test))
    }

    private static func declaration(_ declaration: EntlSyntax.Declaration, _ site: RuleModel.Site)
        -> RuleModel.Declaration
    {
        switch declaration {
        case .app(let a): .app(RuleModel.App(id: a.id, site: site))
        case .product(let p): .product(product(p, site))
        case .entitlement(let e): .entitlement(entitlement(e, site))
        case .feature(let f): .feature(feature(f, site))
        case .credits(let c): .feature(creditSystem(c, site))
        case .test(let t): .test(test(t, site))
        case .environment:
            // INVARIANT: the checker flattens environment blocks into their declarations' sites.
            preconditionFailure("an environment block is not a declaration site")
        }
    }

    /// What a block's items say, sorted into fields; an item given twice (already reported)
    /// keeps the one written last. Which items a block may hold the parser decided.
    private struct Items {
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

    private static func product(_ p: ProductDeclaration, _ site: RuleModel.Site) -> RuleModel.Product {
        let items = Items(p.items)
        return RuleModel.Product(name: p.name, site: site, docs: p.docs, kind: p.kind, displayName: items.displayName,
                                 period: items.period, group: items.group, duration: items.duration,
                                 storeIDs: items.storeIDs, grants: items.grants)
    }

    private static func entitlement(_ e: EntitlementDeclaration, _ site: RuleModel.Site) -> RuleModel.Entitlement {
        let items = Items(e.items)
        return RuleModel.Entitlement(name: e.name, site: site, docs: e.docs, constraint: e.expression,
                                     displayName: items.displayName, grants: items.grants)
    }

    private static func feature(_ f: FeatureDeclaration, _ site: RuleModel.Site) -> RuleModel.Feature {
        let items = Items(f.items)
        return RuleModel.Feature(name: f.name, site: site, docs: f.docs, isCreditSystem: false, kind: f.kind,
                                 usage: items.usage, requires: f.requires, displayName: items.displayName,
                                 event: items.event, unit: items.unit, conversions: [])
    }

    private static func creditSystem(_ c: CreditsDeclaration, _ site: RuleModel.Site) -> RuleModel.Feature {
        let items = Items(c.items)
        return RuleModel.Feature(name: c.name, site: site, docs: c.docs, isCreditSystem: true, kind: nil, usage: nil,
                                 requires: nil, displayName: items.displayName, event: nil, unit: items.unit,
                                 conversions: items.conversions)
    }

    private static func test(_ t: TestDeclaration, _ site: RuleModel.Site) -> RuleModel.Test {
        var environment: EnvironmentName?
        var names: [Identifier] = [], expectations: [Expectation] = []
        for item in t.items {
            switch item.kind {
            case .env(let e): environment = environment ?? e.value
            case .given(let g): names.append(g.product)
            case .used(let feature, _, _, _), .level(let feature, _, _): names.append(feature)
            case .override(let product, _): names.append(product)
            case .expect(let e):
                expectations.append(e)
                names.append(e.name)
                if case .credits(_, let system?)? = e.via { names.append(system) }
            case .at, .state, .customerSince: break
            }
        }
        return RuleModel.Test(syntax: t, site: site, environment: environment ?? .live, names: names,
                              expectations: expectations)
    }
}
