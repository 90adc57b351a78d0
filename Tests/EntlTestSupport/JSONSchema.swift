import EntlRuntime
import Foundation

/// A small JSON Schema (2020-12) validator for the keywords entlc's schemas use: `type`,
/// `properties`, `additionalProperties`, `required`, `enum`, `const`, `items`, `minItems`,
/// `maxItems`, `minimum`, `maximum`, `pattern`, `oneOf`, `anyOf`, `allOf`, `not`, `if`/`then`/`else`,
/// and local `$ref`s
/// (`#/$defs/…`). `format` and the annotations are ignored, as 2020-12 does by default. A keyword it
/// does not know is an error, so a schema cannot silently say more than this checks.
public struct JSONSchemaValidator: Sendable {
    let root: JSONValue

    public init(_ schema: JSONValue) {
        root = schema
    }

    /// The validator of a schema file in the repository (`schema/state.schema.json`); traps when
    /// it does not parse, since every test of it would be meaningless.
    public init(repoFile path: String) {
        guard let text = try? readRepoFile(path), let schema = try? JSONParser.parse(text) else {
            fatalError("\(path) does not parse")
        }
        self.init(schema)
    }

    static let known: Set<String> = [
        "$schema", "$id", "$defs", "$ref", "$comment", "title", "description", "examples", "format", "type", "properties",
        "additionalProperties", "required", "enum", "const", "items", "minItems", "maxItems", "minimum", "maximum", "pattern",
        "oneOf", "anyOf", "allOf", "not", "if", "then", "else",
    ]

    /// The problems of `value` against the schema, as `path: message` lines (empty when valid).
    public func errors(_ value: JSONValue) -> [String] {
        var out: [String] = []
        check(value, root, path: "$", into: &out)
        return out
    }

    private func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#/") else { return nil }
        var node = root
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let next = node[String(part)] else { return nil }
            node = next
        }
        return node
    }

    static func type(of v: JSONValue) -> String {
        switch v {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        // A number with no fraction is an integer however it is written (`1.0`, `1e2`).
        case .number(let n): Double(n).map { $0 == $0.rounded() } ?? false ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .int(let n): Double(n)
        case .number(let n): Double(n)
        default: nil
        }
    }

    private func check(_ v: JSONValue, _ schema: JSONValue, path: String, into out: inout [String]) {
        if case .bool(let allowed) = schema {
            if !allowed { out.append("\(path): not allowed") }
            return
        }
        guard case .object(let keywords) = schema else {
            out.append("\(path): the schema is not an object")
            return
        }
        for (k, _) in keywords where !Self.known.contains(k) { out.append("\(path): unknown schema keyword \(k)") }
        if case .string(let ref)? = schema["$ref"] {
            guard let target = resolve(ref) else {
                out.append("\(path): unresolved $ref \(ref)")
                return
            }
            check(v, target, path: path, into: &out)
        }
        let actual = Self.type(of: v)
        if let t = schema["type"] {
            let allowed: [String] = switch t {
            case .string(let s): [s]
            case .array(let a): a.compactMap { if case .string(let s) = $0 { s } else { nil } }
            default: []
            }
            if !allowed.contains(actual), !(actual == "integer" && allowed.contains("number")) {
                out.append("\(path): \(actual) is not of type \(allowed.joined(separator: " or "))")
            }
        }
        if case .array(let options)? = schema["enum"], !options.contains(v) { out.append("\(path): not one of the allowed values") }
        if let c = schema["const"], c != v { out.append("\(path): not the constant") }
        if let n = Self.number(v) {
            if let min = schema["minimum"].flatMap(Self.number), n < min { out.append("\(path): below the minimum") }
            if let max = schema["maximum"].flatMap(Self.number), n > max { out.append("\(path): above the maximum") }
        }
        if case .string(let s) = v, case .string(let pattern)? = schema["pattern"] {
            if let regex = try? Regex(pattern) {
                if (try? regex.firstMatch(in: s)) == nil { out.append("\(path): does not match \(pattern)") }
            } else {
                out.append("\(path): bad pattern \(pattern)")
            }
        }
        if case .array(let items) = v {
            if let min = schema["minItems"].flatMap(Self.number), Double(items.count) < min { out.append("\(path): too few items") }
            if let max = schema["maxItems"].flatMap(Self.number), Double(items.count) > max { out.append("\(path): too many items") }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() { check(item, itemSchema, path: "\(path)[\(i)]", into: &out) }
            }
        }
        if case .object(let members) = v {
            if case .array(let required)? = schema["required"] {
                for case .string(let key) in required where !members.contains(where: { $0.key == key }) {
                    out.append("\(path): missing \(key)")
                }
            }
            let properties: [(key: String, value: JSONValue)] = if case .object(let p)? = schema["properties"] { p } else { [] }
            for (key, value) in members {
                if let p = properties.first(where: { $0.key == key }) {
                    check(value, p.value, path: "\(path).\(key)", into: &out)
                } else if let additional = schema["additionalProperties"] {
                    check(value, additional, path: "\(path).\(key)", into: &out)
                }
            }
        }
        func passes(_ s: JSONValue) -> Bool {
            var e: [String] = []
            check(v, s, path: path, into: &e)
            return e.isEmpty
        }
        if case .array(let all)? = schema["allOf"] { for s in all { check(v, s, path: path, into: &out) } }
        if case .array(let any)? = schema["anyOf"], !any.contains(where: passes) { out.append("\(path): matches none of anyOf") }
        if case .array(let one)? = schema["oneOf"] {
            let n = one.filter(passes).count
            if n != 1 { out.append("\(path): matches \(n) of oneOf, not exactly one") }
        }
        if let not = schema["not"], passes(not) { out.append("\(path): matches `not`") }
        if let condition = schema["if"] {
            if passes(condition) {
                if let then = schema["then"] { check(v, then, path: path, into: &out) }
            } else if let otherwise = schema["else"] {
                check(v, otherwise, path: path, into: &out)
            }
        }
    }
}

/// State JSON (docs/state.md) for a state: every key the state has, as the decoder reads it.
public func stateJSON(_ s: PurchaseState) -> String {
    func str(_ x: String) -> String { JSONValue.string(x).compact }
    var members: [String] = []
    if let c = s.customer { members.append("\"customer\": \(str(c))") }
    if let c = s.customerSince { members.append("\"customer_since\": \"\(c)\"") }
    if let n = s.now { members.append("\"now\": \"\(n)\"") }
    if let e = s.environment { members.append("\"environment\": \"\(e.rawValue)\"") }
    let purchases = s.purchases.map { p -> String in
        var m = ["\"product\": \(str(p.product))", "\"status\": \"\(p.status.rawValue)\"", "\"ownership\": \"\(p.ownership.rawValue)\"",
                 "\"quantity\": \(p.quantity)", "\"environment\": \"\(p.environment.rawValue)\""]
        if let x = p.store { m.append("\"store\": \(str(x))") }
        for (key, instant) in [("purchased_at", p.purchasedAt), ("period_start", p.periodStart), ("expires_at", p.expiresAt),
                               ("grace_until", p.graceUntil)] {
            if let instant { m.append("\"\(key)\": \"\(instant)\"") }
        }
        if let w = p.willRenew { m.append("\"will_renew\": \(w)") }
        return "{" + m.joined(separator: ", ") + "}"
    }
    members.append("\"purchases\": [" + purchases.joined(separator: ", ") + "]")
    members.append("\"usage\": [" + s.usage.map { String(decoding: $0.json, as: UTF8.self) }.joined(separator: ", ") + "]")
    if !s.overrides.isEmpty {
        members.append("\"overrides\": {" + s.overrides.map { "\(str($0.product)): \"\($0.value.rawValue)\"" }.joined(separator: ", ") + "}")
    }
    if !s.grants.isEmpty {
        members.append("\"grants\": [" + s.grants.map { String(decoding: $0.json, as: UTF8.self) }.joined(separator: ", ") + "]")
    }
    return "{" + members.joined(separator: ", ") + "}"
}
