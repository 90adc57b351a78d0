import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// schema/state.schema.json describes the state format exactly as the decoder reads it: every
/// example and fixture state validates, the misspellings the decoder warns about are refused,
/// and over random states the schema and the strict decoder agree.
@Suite struct StateSchemaTests {
    static let validator = JSONSchemaValidator(repoFile: "schema/state.schema.json")

    static var stateFiles: [String] {
        let examples = (try? FileManager.default.contentsOfDirectory(atPath: repoPath("examples"))) ?? []
        return examples.filter { $0.hasSuffix(".json") }.map { "examples/" + $0 }
            + ["Tests/Fixtures/states/spec-example.state.json", "Tests/Fixtures/tests/runner.state.json"]
    }

    @Test(arguments: stateFiles)
    func everyExampleAndFixtureValidates(_ path: String) throws {
        let value = try JSONParser.parse(try readRepoFile(path))
        #expect(Self.validator.errors(value) == [])
        #expect(try PurchaseState(json: try readRepoFile(path), options: StateDecodingOptions(strict: true)).warnings == [])
    }

    @Test(arguments: [
        #"{"purchases": [{"product": "pro", "state": "expired"}]}"#,
        #"{"purchases": [{"product": "pro", "expires": "2026-01-01T00:00:00Z"}]}"#,
        #"{"Now": "2026-11-22T12:00:00Z"}"#,
        #"{"purchases": [{"product": "pro", "status": "actve"}]}"#,
        #"{"purchases": [{"store": "app_store"}]}"#,
        #"{"purchases": [{"product": "pro", "expires_at": "2026-11-22"}]}"#,
        #"{"usage": [{"feature": "calls", "amount": -5}]}"#,
        #"{"usage": [{"feature": "calls", "amount": 1000000000000001}]}"#,
        #"{"usage": [{"feature": "calls", "amount": 1.5}]}"#,
        #"{"usage": [{"feature": "calls", "event": "call", "amount": 1}]}"#,
        #"{"usage": [{"feature": "calls", "amount": 1, "level": 2}]}"#,
        #"{"usage": [{"feature": "calls"}]}"#,
        #"{"overrides": {"pro": "yes"}}"#,
        #"{"environment": "staging"}"#,
    ])
    func whatTheDecoderRefusesOrWarnsAboutTheSchemaRefuses(_ json: String) throws {
        #expect(!Self.validator.errors(try JSONParser.parse(json)).isEmpty)
        #expect(throws: StateError.self) { try PurchaseState(json: json, options: StateDecodingOptions(strict: true)) }
    }

    @Test func nullIsAbsentForBoth() throws {
        let json = #"{"customer": null, "now": null, "purchases": [{"product": "p", "expires_at": null, "quantity": null}], "usage": [{"feature": null, "event": "e", "amount": 1, "id": null}], "overrides": null}"#
        #expect(Self.validator.errors(try JSONParser.parse(json)) == [])
        #expect(throws: Never.self) { try PurchaseState(json: json, options: StateDecodingOptions(strict: true)) }
    }

    /// The schema and the decoder agree over random states (the differential generator's), and
    /// over the same states with one key misspelled.
    @Test func theSchemaAndTheStrictDecoderAgree() throws {
        var r = SeededRandom(seed: 11)
        var misspelled = 0
        for seed in UInt64(1)...300 {
            let c = DifferentialCase(seed: seed)
            let json = stateJSON(c.state)
            #expect(Self.validator.errors(try JSONParser.parse(json)) == [], "\(json)")
            let decoded = try PurchaseState(json: json, options: StateDecodingOptions(strict: true))
            #expect(decoded == c.state)
            // Misspell one key.
            let keys = ["\"product\"", "\"status\"", "\"quantity\"", "\"amount\"", "\"feature\"", "\"customer_since\"", "\"store\""]
                .filter { json.contains($0) }
            guard !keys.isEmpty else { continue }
            let key = r.pick(keys)
            let bad = json.replacingOccurrences(of: key, with: key.dropLast() + "s\"")
            #expect(!Self.validator.errors(try JSONParser.parse(bad)).isEmpty, "\(bad)")
            #expect(throws: StateError.self) { try PurchaseState(json: bad, options: StateDecodingOptions(strict: true)) }
            misspelled += 1
        }
        #expect(misspelled > 250)
    }

    /// The validator itself: it finds what it should.
    @Test func theValidatorChecksWhatItClaims() throws {
        let schema = try JSONParser.parse(#"""
            {"type": "object", "required": ["a"], "additionalProperties": false,
             "properties": {"a": {"type": "integer", "minimum": 1, "maximum": 3}, "b": {"enum": ["x", null]},
                            "c": {"type": "array", "maxItems": 1, "items": {"$ref": "#/$defs/s"}}},
             "$defs": {"s": {"type": "string", "pattern": "^[a-z]+$"}}}
            """#)
        let v = JSONSchemaValidator(schema)
        #expect(v.errors(try JSONParser.parse(#"{"a": 2, "b": null, "c": ["ok"]}"#)) == [])
        #expect(v.errors(try JSONParser.parse(#"{"a": 4, "b": "y", "c": ["OK", "x"], "d": 1}"#)) == [
            "$.a: above the maximum", "$.b: not one of the allowed values", "$.c: too many items",
            "$.c[0]: does not match ^[a-z]+$", "$.d: not allowed",
        ])
        #expect(v.errors(try JSONParser.parse("{}")) == ["$: missing a"])
        #expect(v.errors(try JSONParser.parse(#"{"a": 1.5}"#)) == ["$.a: number is not of type integer"])
        #expect(v.errors(try JSONParser.parse(#"{"a": 2.0}"#)) == [])
        #expect(JSONSchemaValidator(try JSONParser.parse(#"{"dependentSchemas": {}}"#)).errors(.null)
            == ["$: unknown schema keyword dependentSchemas"])
        let conditional = JSONSchemaValidator(try JSONParser.parse(#"{"if": {"type": "integer"}, "then": {"minimum": 1}, "else": {"type": "string"}}"#))
        #expect(conditional.errors(.int(0)) == ["$: below the minimum"])
        #expect(conditional.errors(.int(1)) == [])
        #expect(conditional.errors(.bool(true)) == ["$: boolean is not of type string"])
    }
}
