import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// `entlc build`'s artifact: loading a built graph gives what compiling the source gives, and
/// the decoder refuses every inconsistency with its place, never trapping.
@Suite struct RuleGraphArtifactTests {
    static let examples = ["api", "crossplatform", "photos", "subscriptions"]

    func compiled(_ text: String) throws -> RuleGraph {
        try #require(Compiler.compile([SourceFile(path: "t.entl", text: text)], lint: false).graph)
    }

    func built(_ graph: RuleGraph) throws -> RuleGraph {
        try RuleGraphArtifact(bytes: RuleGraphArtifact.encode(graph, compiler: "entlc test")).graph
    }

    /// Every query of `state` at `at`, in both environments, as JSON text (or the error).
    func answers(_ graph: RuleGraph, _ state: PurchaseState, _ at: Instant) -> String {
        Environment.allCases.map { env in
            do {
                let e = try Evaluation(graph: graph, state: state, environment: env, at: at, explain: true)
                return e.json(e.all()).pretty
            } catch {
                return "error: \(error)"
            }
        }.joined(separator: "\n")
    }

    /// As compiled, a graph whose environments have the same content loads as one graph shared by
    /// both; the tour, with a test-only block, loads as two.
    @Test func environmentsOfTheSameContentLoadAsOneGraph() throws {
        let tour = try readRepoFile("Tests/Fixtures/valid/tour.entl")
        let two = try built(compiled(tour))
        #expect(two.live !== two.test)
        #expect(two.test.productIndex["debug_unlock"] != nil && two.live.productIndex["debug_unlock"] == nil)
        let one = try built(compiled(String(tour[..<(try #require(tour.range(of: "environment test {"))).lowerBound])))
        #expect(one.live === one.test)
        #expect(one.live.productIndex == two.live.productIndex)
    }

    @Test(arguments: examples)
    func aBuiltExampleAnswersAsTheCompiledOne(_ name: String) throws {
        let graph = try compiled(readRepoFile("examples/\(name).entl"))
        let state = try PurchaseState(json: readRepoFile("examples/\(name).state.json"))
        let loaded = try built(graph)
        for at in ["2026-01-01T00:00:00Z", "2026-11-22T12:00:00Z", "2027-06-30T23:59:59Z"] {
            let instant = try #require(Instant(rfc3339: at))
            #expect(answers(loaded, state, instant) == answers(graph, state, instant))
        }
        // Derived parts agree too (they are rebuilt on load, not stored).
        for env in Environment.allCases {
            #expect(loaded[env].entitlements.map(\.behind) == graph[env].entitlements.map(\.behind))
            #expect(loaded[env].features.map(\.watchedProducts) == graph[env].features.map(\.watchedProducts))
            #expect(loaded[env].features.map(\.creditRoutes) == graph[env].features.map(\.creditRoutes))
            #expect(loaded[env].storeIDs == graph[env].storeIDs)
        }
        // Writing a loaded graph gives the same bytes: one encoding, deterministic.
        #expect(RuleGraphArtifact.encode(loaded, compiler: "x") == RuleGraphArtifact.encode(graph, compiler: "x"))
    }

    @Test func builtAndCompiledAgreeOnTheDifferentialCases() throws {
        var compared = 0
        for seed in UInt64(1)...150 {
            for focus in [DifferentialCase.Focus.credits, .purchaseDates] {
                let c = DifferentialCase(seed: seed, focus: focus)
                guard let graph = Compiler.compile([SourceFile(path: "d.entl", text: c.rules)], lint: false).graph else { continue }
                let loaded = try built(graph)
                #expect(answers(loaded, c.state, c.at) == answers(graph, c.state, c.at), "\(c)")
                compared += 1
            }
        }
        #expect(compared > 250)
    }

    @Test func theArtifactCarriesItsVersionsAndDigest() throws {
        let graph = try compiled("product pro: subscription { period month }")
        let bytes = RuleGraphArtifact.encode(graph, compiler: "entlc 9.9.9")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"format":"entl-rule-graph","format_version":1,"compiler":"entlc 9.9.9","sha256":""#))
        #expect(text.hasSuffix("}\n"))
        let content = String(text[text.range(of: #","graph":"#)!.upperBound...].dropLast(2))
        let artifact = try RuleGraphArtifact(bytes: bytes)
        #expect(artifact.sha256 == SHA256.hexDigest(Array(content.utf8)))
        #expect(artifact.compiler == "entlc 9.9.9")
    }

    // MARK: - Refusals

    /// The artifact of a small rule set with `edit` applied to its parsed JSON, resealed with a matching
    /// digest (so the deeper check is the one that fires).
    func refusal(_ edit: (inout JSONValue) -> Void) throws -> RuleGraphArtifactError {
        let graph = try compiled("""
            product monthly: subscription { period month; id app_store "m" }
            product pack: consumable
            entitlement pro = monthly or pack >= 2 { grants calls 100 per month }
            entitlement vip = pro and not pack
            feature export: boolean requires pro
            feature calls: metered { unit "call" / "calls" }
            credits tokens { calls 1 = 2 }
            """)
        guard let error = EntlTestSupport.refusal(of: RuleGraphArtifact.encode(graph, compiler: "entlc test"), edit) else {
            Issue.record("the edited artifact was accepted")
            return RuleGraphArtifactError(path: "", message: "")
        }
        return error
    }

    @Test func aNewerFormatVersionIsRefused() throws {
        let e = try refusal { $0.set(["format_version"], .int(2)) }
        #expect(e.description == "format_version: format version 2 was built by a newer entlc; this runtime reads version 1 (update EntlRuntime)")
    }

    @Test func aDigestMismatchIsRefused() throws {
        let graph = try compiled("product pro: non_consumable")
        var text = String(decoding: RuleGraphArtifact.encode(graph, compiler: "c"), as: UTF8.self)
        text = text.replacingOccurrences(of: #""name":"pro""#, with: #""name":"prp""#)
        #expect(throws: RuleGraphArtifactError.self) { try RuleGraphArtifact(bytes: Array(text.utf8)) }
        do {
            _ = try RuleGraphArtifact(bytes: Array(text.utf8))
        } catch {
            #expect(error.path == "sha256")
            #expect(error.message.hasPrefix("the digest does not match the content (the file is corrupt or was edited): expected "))
        }
    }

    @Test func notJSONAndNotAGraphAreRefused() throws {
        do {
            _ = try RuleGraphArtifact(bytes: Array("{\"format\": ".utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.description == "not JSON: 1:12: unexpected end of input, expected a value")
        }
        let e = try refusal { $0.set(["format"], .string("cedar-policy")) }
        #expect(e.description == #"format: not an entl rule graph (expected "entl-rule-graph")"#)
    }

    @Test func anIndexOutOfRangeIsRefused() throws {
        let e = try refusal { $0.set(["graph", "live", "entitlements", 0, "constraint", 0], .array([.string("product"), .int(7)])) }
        #expect(e.description == "graph.live.entitlements[0].constraint[0][1]: index 7 is out of range (2 products)")
        let g = try refusal { $0.set(["graph", "test", "features", 1, "grants", 0, "source"], .object([("entitlement", .int(-1))])) }
        #expect(g.description == "graph.test.features[1].grants[0].source.entitlement: index -1 is out of range (2 entitlements)")
    }

    @Test func aProgramThatDoesNotReduceToOneValueIsRefused() throws {
        let extra = try refusal { $0.set(["graph", "live", "entitlements", 0, "constraint", 3], .array([.string("everyone")])) }
        #expect(extra.description == "graph.live.entitlements[0].constraint: the program leaves 2 values, not one")
        let short = try refusal { $0.set(["graph", "live", "entitlements", 0, "constraint", 2], .array([.string("or"), .int(3)])) }
        #expect(short.description == "graph.live.entitlements[0].constraint[2]: `or` needs 3 values, the stack holds 2")
        let unknown = try refusal { $0.set(["graph", "live", "entitlements", 0, "constraint", 2], .array([.string("xor"), .int(2)])) }
        #expect(unknown.description == "graph.live.entitlements[0].constraint[2][0]: unknown step `xor`")
    }

    @Test func aConstraintNestedTooDeeplyIsRefused() throws {
        let e = try refusal {
            $0.set(["graph", "live", "entitlements", 0, "constraint"],
                       .array([.array([.string("everyone")])] + Array(repeating: .array([.string("not")]), count: 300)))
        }
        #expect(e.description == "graph.live.entitlements[0].constraint[257]: the constraint nests deeper than 256 levels of parentheses and `not`")
    }

    @Test func anOrderThatIsNotTopologicalIsRefused() throws {
        let swapped = try refusal { $0.set(["graph", "live", "entitlement_order"], .array([.int(1), .int(0)])) }
        #expect(swapped.description == "graph.live.entitlement_order: not a topological order: `vip` comes before `pro`, which it names")
        let cycle = try refusal { $0.set(["graph", "live", "entitlements", 0, "constraint"], .array([.array([.string("entitlement"), .int(0)])])) }
        #expect(cycle.description == "graph.live.entitlement_order: not a topological order: `pro` comes before `pro`, which it names (itself: a cycle)")
        let missing = try refusal { $0.set(["graph", "live", "entitlement_order"], .array([.int(0)])) }
        #expect(missing.description == "graph.live.entitlement_order: the order lists 1 of 2 entitlements")
        let twice = try refusal { $0.set(["graph", "live", "entitlement_order"], .array([.int(0), .int(0)])) }
        #expect(twice.description == "graph.live.entitlement_order[1]: entitlement 0 appears twice in the order")
    }

    @Test func duplicateNamesAreRefused() throws {
        let e = try refusal { $0.set(["graph", "live", "features", 0, "name"], .string("pro")) }
        #expect(e.description == "graph.live.features[0]: duplicate name `pro`")
        let id = try refusal {
            $0.set(["graph", "live", "products", 1, "store_ids"], .array([.object([("store", .string("app_store")), ("id", .string("m"))])]))
        }
        #expect(id.description == #"graph.live.products[1].store_ids[0]: store id "m" at app_store names two products"#)
    }

    @Test func numbersOutOfRangeAreRefused() throws {
        let amount = try refusal { $0.set(["graph", "live", "features", 1, "grants", 0, "amount"], .number("1000000000000001")) }
        #expect(amount.description == "graph.live.features[1].grants[0].amount: 1000000000000001 is out of range (1 to 1000000000000000)")
        let ratio = try refusal { $0.set(["graph", "live", "features", 2, "conversions", 0, "amount"], .int(0)) }
        #expect(ratio.description == "graph.live.features[2].conversions[0].amount: 0 is out of range (1 to 1000000000000000)")
        let fraction = try refusal { $0.set(["graph", "live", "features", 1, "grants", 0, "amount"], .number("1.5")) }
        #expect(fraction.description == "graph.live.features[1].grants[0].amount: expected an integer from 1 to 1000000000000000")
        let huge = try refusal { $0.set(["graph", "live", "entitlements", 0, "constraint", 1], .array([.string("at_least"), .int(1), .number("99999999999999999999")])) }
        #expect(huge.description == "graph.live.entitlements[0].constraint[1][2]: expected an integer from 0 to 1000000000000000")
    }

    @Test func unknownAndMissingMembersAreRefused() throws {
        let unknown = try refusal { $0.set(["graph", "live", "products", 0, "price"], .int(5)) }
        #expect(unknown.description == "graph.live.products[0]: unknown member `price`")
        let kind = try refusal { $0.set(["graph", "live", "products", 0, "kind"], .string("subscriptoin")) }
        #expect(kind.description == #"graph.live.products[0].kind: unknown value "subscriptoin" (expected one of "non_consumable", "consumable", "subscription", "non_renewing")"#)
        let boolean = try refusal { $0.set(["graph", "live", "features", 0, "grants"], .array([.object([
            ("source", .object([("product", .int(0))])), ("amount", .int(5)), ("interval", .null), ("carry", .null),
            ("priority", .int(0)), ("order", .int(9)),
        ])])) }
        #expect(boolean.description == "graph.live.features[0].grants[0].amount: a boolean feature's grant has no amount")
    }
}
