import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// schema/eval-result.schema.json describes what `entlc eval --format json` and `--states` write:
/// the goldens, explained and unlocked results and batch lines validate; a missing, extra or
/// misspelled field does not.
@Suite struct EvalResultSchemaTests {
    static let validator = JSONSchemaValidator(repoFile: "schema/eval-result.schema.json")

    @Test(arguments: ["api", "crossplatform", "photos", "subscriptions"])
    func goldensAndExplainedOutputValidate(_ name: String) throws {
        let golden = try JSONParser.parse(try readRepoFile("Tests/Fixtures/golden/eval/\(name).json"))
        #expect(Self.validator.errors(golden) == [])
        for extra in [["--explain"], ["--at", "2028-01-01T00:00:00Z"]] {
            let r = try runEntlc(["eval", "examples/\(name).entl", "--state", "examples/\(name).state.json", "--all", "--format", "json"] + extra)
            #expect(r.status == 0)
            let value = try JSONParser.parse(r.stdout)
            #expect(Self.validator.errors(value) == [], "\(extra)")
        }
    }

    @Test func batchLinesValidateIncludingErrorsWarningsAndUnlocks() throws {
        let lines = [
            #"{"customer": "a", "now": "2026-11-22T12:00:00Z", "purchases": []}"#,
            #"{"customer": "b", "now": "2026-11-22T12:00:00.5Z", "purchases": [{"product": "api_pro_monthly", "expires_at": "2026-12-01T00:00:00Z"}], "colour": 1}"#,
            #"{"customer": "c", "purchases": [{"product": 5}]}"#,
        ].joined(separator: "\n") + "\n"
        let r = try runEntlc(["eval", "examples/api.entl", "--states", "-", "--all", "--unlock"], stdin: lines)
        #expect(r.status == 0)
        let outputs = r.stdout.split(separator: "\n").map(String.init)
        #expect(outputs.count == 3)
        for line in outputs {
            #expect(Self.validator.errors(try JSONParser.parse(line)) == [], "\(line)")
        }
        #expect(outputs[0].contains(#""unlocked_by":["api_pro_monthly","api_pro_annual"]"#))
        #expect(outputs[1].contains(#""warnings":["#))
        #expect(outputs[2].hasPrefix(#"{"line":3,"error":"#))
    }

    @Test func aWrongShapeIsRefused() throws {
        let golden = try JSONParser.parse(try readRepoFile("Tests/Fixtures/golden/eval/photos.json"))
        func edited(_ edit: (inout [(key: String, value: JSONValue)]) -> Void) -> [String] {
            guard case .object(var top) = golden, case .array(var results)? = golden["results"],
                  case .object(var first) = results[4] else { return ["not the expected golden"] }
            edit(&first)
            results[4] = .object(first)
            top[top.firstIndex { $0.key == "results" }!].value = .array(results)
            return Self.validator.errors(.object(top))
        }
        #expect(edited { _ in } == [])
        #expect(!edited { $0.removeAll { $0.key == "status" } }.isEmpty)
        #expect(!edited { $0.append((key: "plan", value: .string("x"))) }.isEmpty)
        #expect(!edited { $0[$0.firstIndex { $0.key == "status" }!].value = .string("lapsed") }.isEmpty)
        #expect(!edited { $0[$0.firstIndex { $0.key == "expires_at" }!].value = .string("2026-12-01") }.isEmpty)
    }
}
