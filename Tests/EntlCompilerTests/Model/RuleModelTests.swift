import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// The resolved model: each declaration typed once, each environment's names resolved.
@Suite struct RuleModelTests {
    static let rules = """
        app "com.example"
        product pro: subscription { name "Pro"; period month; id app_store "pro.m"; grants calls 100 per day }
        credits tokens { unit "token" / "tokens"; calls 10 = 1 }
        feature calls: metered { unit "call"; event "api.call" }
        feature seats: metered { usage continuous }
        entitlement plus = pro { grants tokens 50; grants calls unlimited priority 2 }
        environment test {
          product sandbox: non_consumable { grants calls 5; grants seats 3 }
          entitlement plus_test = sandbox or plus
        }
        test "t" { env test; given sandbox; expect calls allowed via credits tokens }
        """

    @Test func eachDeclarationTyped() throws {
        let model = check(Self.rules).model
        #expect(model.app == "com.example")
        let pro = try #require(model.live.product("pro"))
        #expect(pro.kind?.value == .subscription)
        #expect(pro.displayName?.value == "Pro")
        #expect(pro.period?.value == .month)
        #expect(pro.storeIDs.map { "\($0.store.name) \($0.id.value)" } == ["app_store pro.m"])
        #expect(pro.grants.map(\.description) == ["calls 100 per day"])
        let tokens = try #require(model.live.feature("tokens"))
        #expect(tokens.isCreditSystem)
        #expect(tokens.unit?.pluralText == "tokens")
        let conversions = tokens.conversions.map { "\($0.feature.name) \($0.amount.value) = \($0.credits.value)" }
        #expect(conversions == ["calls 10 = 1"])
        let calls = try #require(model.live.feature("calls"))
        #expect(calls.symbolKind == .feature(.metered, .singleUse))
        #expect(model.live.feature("seats")?.symbolKind == .feature(.metered, .continuous))
        #expect(calls.unit?.pluralText == "call")
        #expect(calls.event?.value == "api.call")
        #expect(model.live.entitlement("plus")?.constraint.description == "pro")
        #expect(model.tests.map(\.environment) == [.test])
        #expect(model.tests.first?.names.map(\.name) == ["sandbox", "calls", "tokens"])
    }

    /// Each environment sees the declarations outside blocks and its own; its lists are in
    /// declaration order, features and credit systems in one index space, as the graph's.
    @Test func eachEnvironmentResolvesItsNames() throws {
        let checked = check(Self.rules)
        try #require(!checked.hasErrors, "\(checked.diagnostics.map(\.message))")
        let live = checked.model.live, test = checked.model.test
        #expect(live.products.map(\.name.name) == ["pro"])
        #expect(test.products.map(\.name.name) == ["pro", "sandbox"])
        #expect(live.features.map(\.name.name) == ["tokens", "calls", "seats"])
        #expect(test.resolve("plus_test") == .entitlement(1))
        #expect(live.resolve("plus_test") == nil)
        #expect(live.resolve("calls") == .feature(1))
        #expect(test.product("sandbox")?.site.environment == .test)
        #expect(!checked.model.sameInEveryEnvironment)
        let graph = Compiler.graph(of: checked)
        for (model, lowered) in [(live, graph.live), (test, graph.test)] {
            #expect(model.products.map(\.name.name) == lowered.products.map(\.name))
            #expect(model.entitlements.map(\.name.name) == lowered.entitlements.map(\.name))
            #expect(model.features.map(\.name.name) == lowered.features.map(\.name))
        }
    }

    /// Every grant of the environment in declaration order, its source and feature resolved.
    @Test func grantsInDeclarationOrder() {
        let test = check(Self.rules).model.test
        #expect(test.grants.map { "\($0.source) \($0.feature.map(String.init) ?? "-") \($0.grant)" } == [
            "product(0) 1 calls 100 per day", "entitlement(0) 0 tokens 50",
            "entitlement(0) 1 calls unlimited priority 2", "product(1) 1 calls 5", "product(1) 2 seats 3",
        ])
    }

    /// A rule set with errors still has a model: an unknown name resolves to nothing, a missing
    /// kind is nil, an item given twice keeps the last.
    @Test func aRuleSetWithErrorsStillHasOne() throws {
        let checked = check("""
            product p { name "One"; name "Two"; grants nothing }
            feature f: metered { usage continuous; usage single_use }
            """)
        #expect(checked.hasErrors)
        let p = try #require(checked.model.live.product("p"))
        #expect(p.kind == nil)
        #expect(p.displayName?.value == "Two")
        #expect(checked.model.live.grants.map(\.feature) == [nil])
        #expect(checked.model.live.feature("f")?.symbolKind == .feature(.metered, .singleUse))
        #expect(checked.tables[.live]?["f"]?.kind == .feature(.metered, .singleUse))
    }
}
