import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `StateDecodingOptions.names`: a name found by its bytes decodes as it does without them, in
/// every form a state may write it (plain, escaped, long, past ASCII, near the end of the input).
@Suite struct StateNamesTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300

    /// Generated names and states: each state decodes with a random set of known names exactly as
    /// without, or fails with the same error.
    @Test func aStateDecodesTheSameWithOrWithoutItsNames() throws {
        var random = SeededRandom(seed: 2026_11_26)
        // Past ASCII, a quote and a backslash (escaped), a tab (raw: not JSON, refused alike).
        let alphabet = Array("abcp0169._-Zé\"\\\t")
        for _ in 0..<Self.cases {
            func text(_ length: ClosedRange<Int>) -> String {
                String((0..<Int.random(in: length, using: &random)).map { _ in
                    random.chance(0.9) ? random.pick(Array("abcp0169._-Z")) : random.pick(alphabet)
                })
            }
            // Names sharing their first bytes (within a word, across the first word) and not.
            let stems = (0..<3).map { _ in text(0...9) }
            let pool = (0..<12).map { _ in random.pick(stems) + text(0...9) }
            let names = StateNames(pool.filter { _ in random.chance(0.7) })
            func written(_ name: String) -> String {
                var text = ""
                for c in name {
                    switch c {
                    case "\"": text += "\\\""
                    case "\\": text += "\\\\"
                    case "p" where random.chance(0.2): text += "\\u0070"
                    default: text.append(c)
                    }
                }
                return "\"" + text + "\""
            }
            let purchases = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                "{\"product\": \(written(random.pick(pool))), \"store\": \(written(random.pick(pool)))}"
            }
            let usage = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                "{\"feature\": \(written(random.pick(pool))), \"amount\": 1, \"id\": \(written(random.pick(pool)))}"
            }
            // The last name may end within 16 bytes of the input's end.
            let json = "{\"purchases\": [\(purchases.joined(separator: ","))], \"usage\": [\(usage.joined(separator: ","))]"
                + (random.chance(0.5) ? ", \"customer\": \(written(random.pick(pool)))}" : "}")
            let plain = Result { () throws(StateError) in try PurchaseState(json: json) }
            let named = Result { () throws(StateError) in try PurchaseState(json: json, options: .init(names: names)) }
            #expect(plain == named, "\(json)")
        }
    }

    @Test(arguments: ["api", "crossplatform", "photos", "subscriptions"])
    func everyExampleStateDecodesTheSameWithItsRulesNames(_ example: String) throws {
        let names = StateNames(compileGraph(try readRepoFile("examples/\(example).entl")))
        let json = try readRepoFile("examples/\(example).state.json")
        #expect(try PurchaseState(json: json, options: StateDecodingOptions(names: names)) == PurchaseState(json: json))
    }
}
