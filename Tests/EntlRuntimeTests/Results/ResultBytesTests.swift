@testable import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `ResultBytes.swift`: each result written in runs through a cursor (`write(to:)`, the batch path)
/// is the bytes `encode(to:)` writes member by member, over generated results — every member
/// null, empty or set, strings of every small length and of escapes and non-ASCII bytes, reasons
/// of every form — written several to a line from random places in buffers of random capacity (a
/// debug build checks each write against the room its run reserved), and the tree's rendering.
@Suite struct ResultBytesTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300

    static let graph = compileGraph("""
        feature calls: metered { event "api_call"; unit "call" / "calls" }
        credits coins { calls 1 = 10 }
        """)[.live]

    static func string(_ random: inout SeededRandom) -> String {
        switch random.int(0...7) {
        case 0: return ""
        case 1, 2: return String(repeating: "abcdefghijklmnopq", count: 2).prefix(random.int(1...17)).description
        case 3: return random.pick(["é", "naïve name", "quote \" in", "back\\slash", "tab\there", "\u{1}"])
        case 4: return String(repeating: "z", count: random.int(16...90))
        case 5: return random.pick(["x\"", "\"", "\\", "0123456\"", "01234567\\", "0123456789abcd\n"])
        default: return random.pick(["e0", "Product 0", "app_store", "com.bench.p0", "price_p0", "year"])
        }
    }

    static func optional(_ random: inout SeededRandom) -> String? {
        random.chance(0.4) ? nil : string(&random)
    }

    static func instant(_ random: inout SeededRandom) -> Instant? {
        switch random.int(0...4) {
        case 0: return nil
        case 1: return Instant(seconds: random.int64(-100_000_000_000...400_000_000_000))
        case 2: return Instant(seconds: random.int64(0...4_000_000_000), nanoseconds: Int32(random.int(0...999)) * 1_000_000)
        default: return Instant(seconds: 1_795_000_000 + random.int64(0...40) * 86_400)
        }
    }

    static func int(_ random: inout SeededRandom) -> Int64? {
        random.pick([nil, 0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, -1, -10, .max, .min,
                     random.int64(10...9999), random.int64(-100_000...100_000)])
    }

    static let literals: [Reason] = ["no purchase satisfies its constraint", "", "a \"quoted\" reason", "tab\there",
                                     "é", "its requirement holds"]

    static func reason(_ random: inout SeededRandom) -> Reason {
        switch random.int(0...4) {
        case 0, 1: return random.pick(literals)
        case 2: return Reason(string(&random))
        case 3:
            let text = string(&random)
            return Reason(formed: { "formed " + text })
        default:
            let credits: BalanceReason.Credits? = random.chance(0.5)
                ? .init(system: 1, need: random.int64(0...3), balance: random.chance(0.3) ? nil : random.int64(0...2))
                : nil
            return Reason(BalanceReason(feature: 0, left: random.chance(0.2) ? nil : random.int64(0...2),
                                        required: random.int64(0...2), credits: credits), of: graph)
        }
    }

    static func entitlement(_ random: inout SeededRandom) -> EntitlementResult {
        let empty = random.chance(0.4)  // no purchase behind it: the run written as one literal
        var r = EntitlementResult(
            name: string(&random), decision: random.pick([.allowed, .denied, .undetermined]),
            product: empty ? nil : optional(&random), store: empty ? nil : optional(&random),
            expiresAt: empty ? nil : instant(&random), willRenew: !empty && random.chance(0.5),
            inGracePeriod: !empty && random.chance(0.2), inBillingRetry: !empty && random.chance(0.2),
            isRevoked: !empty && random.chance(0.2), ownership: empty ? nil : random.pick([nil, .purchased, .familyShared]),
            period: empty ? nil : optional(&random), isTrial: !empty && random.chance(0.2),
            validUntil: instant(&random), explanation: random.chance(0.8) ? [] : [string(&random), string(&random)])
        r.status = random.pick(EntitlementStatus.allCases)
        if !empty {
            r.trialEnd = instant(&random)
            r.displayName = optional(&random)
            r.storeProductID = optional(&random)
        }
        if random.chance(0.3) { r.unlockedBy = (0..<random.int(0...3)).map { _ in string(&random) } }
        r.why = reason(&random)
        return r
    }

    static func feature(_ random: inout SeededRandom) -> FeatureResult {
        var r = FeatureResult(
            name: string(&random), kind: random.pick(FeatureKind.allCases),
            decision: random.pick([.allowed, .denied, .undetermined]), required: int(&random), balance: int(&random),
            unlimited: random.chance(0.3), overage: int(&random), via: random.pick([nil, .direct, .credits, .overage]),
            creditSystem: optional(&random), creditsRequired: int(&random), creditBalance: int(&random),
            validUntil: instant(&random), reason: "", sources: [],
            explanation: random.chance(0.8) ? [] : [string(&random)])
        r.why = reason(&random)
        r.displayName = optional(&random)
        r.unit = optional(&random)
        r.overdrawn = int(&random)
        r.shortfall = int(&random)
        r.replayed = random.chance(0.1)
        if random.chance(0.3) {  // a boolean feature's: the balance members null or false together
            (r.required, r.balance, r.unit, r.unlimited, r.overage, r.overdrawn) = (nil, nil, nil, false, nil, nil)
        }
        if random.chance(0.3) {  // no credit system named, nothing short
            (r.creditSystem, r.creditsRequired, r.creditBalance, r.shortfall) = (nil, nil, nil, nil)
        }
        if random.chance(0.3) { r.unlockedBy = (0..<random.int(0...2)).map { _ in string(&random) } }
        if random.chance(0.4) {
            r.sources = (0..<random.int(1...2)).map { _ in
                BalanceSource(grant: string(&random), kind: random.pick(["entitlement", "state"]), product: optional(&random),
                              allowance: int(&random), carried: 0, used: 1, remaining: int(&random),
                              windowStart: instant(&random), resetsAt: instant(&random), interval: nil, certain: true,
                              id: optional(&random), reason: optional(&random))
            }
        }
        return r
    }

    static func product(_ random: inout SeededRandom) -> ProductResult {
        var r = ProductResult(name: string(&random), decision: random.pick([.allowed, .denied, .undetermined]),
                              quantity: int(&random), validUntil: instant(&random),
                              explanation: random.chance(0.8) ? [] : [string(&random)])
        r.why = reason(&random)
        return r
    }

    @Test func resultsWrittenInRunsAreTheirMembersWrittenOneByOne() {
        var random = SeededRandom(seed: 2026_11_28)
        for _ in 0..<Self.cases {
            let results: [EvaluationResult] = (0..<random.int(1...4)).map { _ in
                switch random.int(0...2) {
                case 0: .entitlement(Self.entitlement(&random))
                case 1: .feature(Self.feature(&random))
                default: .product(Self.product(&random))
                }
            }
            let prefix = [UInt8](repeating: UInt8(ascii: "p"), count: random.int(0...47))
            let capacity = random.int(1...80)
            var runs = JSONBytes(bytes: prefix, capacity: capacity)
            var members = JSONBytes(bytes: prefix, capacity: capacity)
            for _ in 0..<random.int(1...3) {  // several lines in one sink, as a batch writes them
                runs.beginArray()
                for r in results { r.write(to: &runs) }
                runs.endArray()
                runs.endLine()
                members.beginArray()
                for r in results { r.encode(to: &members) }
                members.endArray()
                members.endLine()
            }
            let (a, b) = (runs.bytes, members.bytes)
            #expect(a == b, "\(String(decoding: a, as: UTF8.self))\n\(String(decoding: b, as: UTF8.self))")
            var tree = JSONTree()
            tree.beginArray()
            for r in results { r.encode(to: &tree) }
            tree.endArray()
            let line = String(decoding: a.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            #expect(line == tree.value.compact)
        }
    }

    /// A batch line of one result (its envelope written in one run) is that result's line in an
    /// array, written member by member, for customers of every kind and with warnings or none.
    @Test func batchLinesEqualTheMemberByMemberLines() throws {
        let graph = compileGraph("""
            product pro: subscription { period month }
            feature export: boolean { name "Export" }
            entitlement premium = pro { grants export }
            """)
        var random = SeededRandom(seed: 11)
        var shared = JSONBytes()
        for _ in 0..<Self.cases {
            var state = PurchaseState()
            state.customer = Self.optional(&random)
            let at = Instant(seconds: 1_795_000_000 + random.int64(0...3) * 86_400)
            let e = try Evaluation(graph: graph, state: state, environment: random.pick([.live, .test]), at: at)
            let warnings: [StateError] = random.chance(0.3) ? [StateError("a \"warning\"")] : []
            let results: [EvaluationResult] = [.entitlement(e.entitlement(0)), .feature(e.feature(0, required: 1)),
                                               .product(try e.product("pro"))]
            for result in results {
                var one = JSONBytes(), array = JSONBytes()
                switch result {
                case .entitlement(let r): e.writeJSONLine(r, warnings: warnings, into: &one)
                case .feature(let r): e.writeJSONLine(r, warnings: warnings, into: &one)
                case .product(let r): e.writeJSONLine(r, warnings: warnings, into: &one)
                }
                e.writeJSONLine([result], warnings: warnings, into: &array)
                #expect(one.bytes == array.bytes, "\(String(decoding: one.bytes, as: UTF8.self))")
                let before = shared.count
                if case .entitlement(let r) = result { e.writeJSONLine(r, warnings: warnings, into: &shared) } else {
                    continue
                }
                #expect(Array(shared.bytes[before...]) == array.bytes)
            }
        }
    }

    /// The common form of an instant's text, built with unsigned arithmetic, is `writeAnyRFC3339`'s:
    /// for every day from 1970 to 9999 at a second of it, and for instants outside the form.
    @Test func commonInstantTextIsTheRFC3339Text() {
        var random = SeededRandom(seed: 5)
        var day: Int64 = -3
        while day <= 2_932_900 {
            let instant = Instant(seconds: day * 86_400 + random.int64(0...86_399))
            var a: [UInt8] = [], b: [UInt8] = []
            instant.writeRFC3339(to: &a)
            instant.writeAnyRFC3339(to: &b)
            #expect(a == b, "day \(day)")
            if a != b { return }
            day += random.int64(1...40)
        }
        for _ in 0..<Self.cases {
            let instant = Instant(seconds: random.int64(-400_000_000_000...400_000_000_000),
                                  nanoseconds: random.chance(0.5) ? 0 : Int32(random.int(0...999_999_999)))
            var a: [UInt8] = [], b: [UInt8] = []
            instant.writeRFC3339(to: &a)
            instant.writeAnyRFC3339(to: &b)
            #expect(a == b)
        }
    }

    /// Strings are laid out as the small-string path reads them on the platforms the tests run on
    /// (else every string takes the general path: still correct, slower).
    @Test func smallStringsAreLaidOutAsRead() {
        #expect(JSONCursor.smallStringLayoutHolds())
    }
}

/// `FeatureResult.reset()` empties a result member by member: whatever a generated result held, it
/// is then `FeatureResult()`. A member added to `Fields` fails the count until `reset()` and this
/// test have it too.
@Suite struct FeatureResetTests {
    @Test func aResetResultIsEmpty() {
        #expect(Mirror(reflecting: FeatureResult.Fields()).children.count == 21)
        var random = SeededRandom(seed: 3)
        for _ in 0..<ResultBytesTests.cases {
            var result = ResultBytesTests.feature(&random)
            let copy = random.chance(0.2) ? result : nil  // shared: reset makes fields of its own
            result.reset()
            #expect(result == FeatureResult())
            #expect(result.stored.pointee == FeatureResult.Fields())
            _ = copy
        }
    }
}

/// An entitlement result reset (the batch's, answered into line after line) is the blank result,
/// whatever it held: generated results, and one with every member set. A member added to
/// `EntitlementResult` fails the count until `reset()` and this test have it too.
@Suite struct EntitlementResetTests {
    @Test func aResetResultIsBlank() {
        var everything = EntitlementResult(
            name: "e", decision: .allowed, product: "p", store: "stripe", expiresAt: Instant(seconds: 1),
            willRenew: true, inGracePeriod: true, inBillingRetry: true, isRevoked: true, ownership: .familyShared,
            period: "month", isTrial: true, validUntil: Instant(seconds: 2), explanation: ["why"])
        (everything.status, everything.trialEnd, everything.displayName) = (.trialing, Instant(seconds: 3), "Pro")
        (everything.storeProductID, everything.unlockedBy, everything.why) = ("price_p", ["q"], "active")
        #expect(Mirror(reflecting: everything).children.count == 20)
        var random = SeededRandom(seed: 4)
        var results = [everything]
        for _ in 0..<ResultBytesTests.cases { results.append(ResultBytesTests.entitlement(&random)) }
        for var result in results {
            result.reset()
            #expect(result == EntitlementResult())
        }
    }
}
