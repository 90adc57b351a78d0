/// A built rule graph as an app or server ships it (`entlc build`): JSON with a format version,
/// the compiler that built it, and the SHA-256 of its content.
///
/// ```json
/// {"format":"entl-rule-graph","format_version":1,"compiler":"entlc 0.1.0",
///  "sha256":"…64 hex digits…","graph":{"app":"…","live":{…},"test":{…}}}
/// ```
///
/// The digest covers the `graph` member written compactly (the bytes `encode` writes there), so
/// it names the rules and not the layout. Only the core of each environment is stored —
/// products, entitlements with their constraints as postfix programs, features with their grants
/// and conversions, and the entitlement order; everything else is derived when the graph is
/// linked (`EnvironmentGraph.init`), so a loaded graph cannot disagree with itself.
///
/// `init(bytes:)` trusts nothing (an app may download its rules): it parses with the runtime's
/// own JSON parser and refuses, with the place and the reason, a newer format version, a digest
/// that does not match, an unknown or missing member, and every graph the compiler cannot emit
/// (an index out of range, a cycle, a duplicate name, an impossible shape: `ArtifactDecoder`).
public struct RuleGraphArtifact: Sendable {
    /// Bumped when the encoding changes incompatibly; a runtime refuses newer versions.
    public static let formatVersion = 1
    static let formatName = "entl-rule-graph"

    public var graph: RuleGraph
    /// What built it, as `entlc --version` says (`entlc 0.1.0`).
    public var compiler: String
    /// SHA-256 of the content, 64 lowercase hex digits.
    public var sha256: String

    /// The artifact's bytes: one line of JSON and a newline.
    public static func encode(_ graph: RuleGraph, compiler: String) -> [UInt8] {
        build(graph, compiler: compiler).bytes
    }

    /// The artifact's bytes and the digest written in them (`entlc build` reports it).
    public static func build(_ graph: RuleGraph, compiler: String) -> (bytes: [UInt8], sha256: String) {
        let content = ArtifactEncoder.graph(graph)
        var bytes: [UInt8] = []
        content.write(into: &bytes, indent: false, level: 0)
        let digest = SHA256.hexDigest(bytes)
        let document = JSONValue.object([
            ("format", .string(formatName)), ("format_version", .int(Int64(formatVersion))),
            ("compiler", .string(compiler)), ("sha256", .string(digest)), ("graph", content),
        ])
        var out: [UInt8] = []
        document.write(into: &out, indent: false, level: 0)
        out.append(UInt8(ascii: "\n"))
        return (out, digest)
    }

    /// Loads and checks an artifact.
    public init(bytes: [UInt8]) throws(RuleGraphArtifactError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw RuleGraphArtifactError(path: "", message: "not JSON: \(error)")
        }
        let document = try ArtifactNode(root, .root).object(["format", "format_version", "compiler", "sha256", "graph"])
        guard try document.member("format").string() == RuleGraphArtifact.formatName else {
            throw RuleGraphArtifactError(path: "format", message: "not an entl rule graph "
                                             + "(expected \"\(RuleGraphArtifact.formatName)\")")
        }
        let version = try document.member("format_version").int(1...Int64(Int32.max))
        guard version <= Int64(RuleGraphArtifact.formatVersion) else {
            throw RuleGraphArtifactError(path: "format_version",
                                         message: "format version \(version) was built by a newer entlc; this runtime "
                                             + "reads version \(RuleGraphArtifact.formatVersion) (update EntlRuntime)")
        }
        compiler = try document.member("compiler").string()
        sha256 = try document.member("sha256").string()
        let content = try document.member("graph")
        var written: [UInt8] = []
        content.value.write(into: &written, indent: false, level: 0)
        let actual = SHA256.hexDigest(written)
        guard actual == sha256 else {
            throw RuleGraphArtifactError(path: "sha256",
                                         message: "the digest does not match the content (the file is corrupt or was "
                                             + "edited): expected \(sha256), computed \(actual)")
        }
        graph = try ArtifactDecoder.graph(content)
    }
}

/// Why an artifact was refused: where (`live.entitlements[2].constraint[4]`) and what.
public typealias RuleGraphArtifactError = InputError<RuleGraphArtifact>

// MARK: - Writing

enum ArtifactEncoder {
    static func graph(_ g: RuleGraph) -> JSONValue {
        .object([("app", .string(g.app)), ("live", environment(g.live)), ("test", environment(g.test))])
    }

    static func environment(_ e: EnvironmentGraph) -> JSONValue {
        .object([
            ("products", .array(e.products.map(product))),
            ("entitlements", .array(e.entitlements.map { en in
                .object([("name", .string(en.name)), ("display_name", .string(en.displayName)),
                         ("docs", .string(en.docs)), ("constraint", program(en.program))])
            })),
            ("features", .array(e.features.map(feature))),
            ("entitlement_order", .array(e.entitlementOrder.map { .int(Int64($0)) })),
        ])
    }

    static func product(_ p: Product) -> JSONValue {
        .object([
            ("name", .string(p.name)), ("display_name", .string(p.displayName)), ("docs", .string(p.docs)),
            ("kind", .string(p.kind.rawValue)), ("period", .string(p.period?.rawValue)), ("group", .string(p.group)),
            ("duration", p.duration.map(calendarStep) ?? .null),
            ("store_ids", .array(p.storeIDs.map { .object([("store", .string($0.store)), ("id", .string($0.id))]) })),
        ])
    }

    static func feature(_ f: Feature) -> JSONValue {
        .object([
            ("name", .string(f.name)), ("display_name", .string(f.displayName)), ("docs", .string(f.docs)),
            ("kind", .string(f.kind.rawValue)), ("event", .string(f.event)),
            ("unit_singular", .string(f.unitSingular)), ("unit_plural", .string(f.unitPlural)),
            ("requires", f.requires.map { program($0.program) } ?? .null),
            ("grants", .array(f.grants.map(grant))),
            ("conversions", .array(f.conversions.map {
                .object([("feature", .int(Int64($0.feature))), ("amount", .int($0.amount)),
                         ("credits", .int($0.credits))])
            })),
        ])
    }

    static func grant(_ g: Grant) -> JSONValue {
        let source: JSONValue = switch g.source {
        case .product(let p): .object([("product", .int(Int64(p)))])
        case .entitlement(let e): .object([("entitlement", .int(Int64(e)))])
        case .state(let i): .object([("state", .int(Int64(i)))])  // never in a graph: the decoder refuses it
        }
        let amount: JSONValue = switch g.amount {
        case .none: .null
        case .count(let n): .int(n)
        case .unlimited: .string("unlimited")
        }
        let carry: JSONValue = switch g.carry {
        case nil: .null
        case .uncapped?: .string("uncapped")
        case .upTo(let n)?: .int(n)
        }
        var members: [(String, JSONValue)] = [("source", source), ("amount", amount),
                                              ("interval", .string(g.interval?.rawValue)), ("carry", carry)]
        // Written only when present, so a rule set without them builds the bytes it always did.
        switch g.overage {
        case .unbounded?: members.append(("overage", .string("unbounded")))
        case .upTo(let n)?: members.append(("overage", .int(n)))
        case nil: break
        }
        if let step = g.expiresAfter { members.append(("expires_after", calendarStep(step))) }
        return .object(members + [("priority", .int(g.priority)), ("order", .int(Int64(g.order)))])
    }

    /// A `duration` or `expires after`: `{"months":12,"seconds":0}`.
    static func calendarStep(_ step: CalendarStep) -> JSONValue {
        .object([("months", .int(step.months)), ("seconds", .int(step.seconds))])
    }

    /// `[["product",0],["entitlement",1],["or",2]]`: one array per step.
    static func program(_ ops: [ConstraintOp]) -> JSONValue {
        .array(ops.map { op in
            switch op {
            case .product(let p): .array([.string("product"), .int(Int64(p))])
            case .entitlement(let e): .array([.string("entitlement"), .int(Int64(e))])
            case .atLeast(let p, let n): .array([.string("at_least"), .int(Int64(p)), .int(n)])
            case .purchased(let p, let date):
                .array([.string(date.before ? "purchased_before" : "purchased_since"), .int(Int64(p)),
                        .string(date.instant.rfc3339)])
            case .everyone: .array([.string("everyone")])
            case .not: .array([.string("not")])
            case .and(let n): .array([.string("and"), .int(Int64(n))])
            case .or(let n): .array([.string("or"), .int(Int64(n))])
            }
        })
    }
}

// MARK: - Reading

/// Where a value is in the document: kept as links and spelled out only for an error.
indirect enum ArtifactPath {
    case root
    case key(ArtifactPath, String)
    case index(ArtifactPath, Int)

    var description: String {
        var parts: [String] = []
        var p = self
        while true {
            switch p {
            case .root:
                return parts.reversed().joined()
            case .key(let parent, let key):
                parts.append(parent.isRoot ? key : "." + key)
                p = parent
            case .index(let parent, let i):
                parts.append("[\(i)]")
                p = parent
            }
        }
    }

    var isRoot: Bool {
        if case .root = self { true } else { false }
    }
}

/// A JSON value and its place in the document, with typed accessors that throw located errors.
struct ArtifactNode {
    let value: JSONValue
    let place: ArtifactPath

    init(_ value: JSONValue, _ place: ArtifactPath) {
        self.value = value
        self.place = place
    }

    func fail(_ message: String) -> RuleGraphArtifactError {
        RuleGraphArtifactError(path: place.description, message: message)
    }

    var isNull: Bool { value == .null }

    /// An object with exactly these members (each once, no others), those in `optional` possibly
    /// absent.
    func object(_ keys: [String], optional: Set<String> = []) throws(RuleGraphArtifactError) -> ArtifactNode {
        guard case .object(let members) = value else { throw fail("expected an object") }
        // The members exactly in `keys`' order, as `entlc build` writes them: nothing more to check.
        guard members.count != keys.count || zip(members, keys).contains(where: { $0.key != $1 }) else { return self }
        var seen = [Bool](repeating: false, count: keys.count)
        for m in members {
            guard let k = keys.firstIndex(of: m.key) else { throw fail("unknown member `\(m.key)`") }
            guard !seen[k] else { throw fail("member `\(m.key)` appears twice") }
            seen[k] = true
        }
        if let missing = keys.indices.first(where: { !seen[$0] && !optional.contains(keys[$0]) }) {
            throw fail("missing member `\(keys[missing])`")
        }
        return self
    }

    func member(_ key: String) throws(RuleGraphArtifactError) -> ArtifactNode {
        guard let v = value[key] else { throw fail("missing member `\(key)`") }
        return ArtifactNode(v, .key(place, key))
    }

    /// The member, or nil when it is absent (an optional member of `object(_:optional:)`).
    func present(_ key: String) -> ArtifactNode? {
        value[key].map { ArtifactNode($0, .key(place, key)) }
    }

    /// The member, or nil when it is null.
    func optional(_ key: String) throws(RuleGraphArtifactError) -> ArtifactNode? {
        let m = try member(key)
        return m.isNull ? nil : m
    }

    func array() throws(RuleGraphArtifactError) -> [ArtifactNode] {
        guard case .array(let items) = value else { throw fail("expected an array") }
        return items.enumerated().map { ArtifactNode($1, .index(place, $0)) }
    }

    func string() throws(RuleGraphArtifactError) -> String {
        guard case .string(let s) = value else { throw fail("expected a string") }
        return s
    }

    func optionalString(_ key: String) throws(RuleGraphArtifactError) -> String? {
        try optional(key)?.string()
    }

    func bool() throws(RuleGraphArtifactError) -> Bool {
        guard case .bool(let b) = value else { throw fail("expected true or false") }
        return b
    }

    func int(_ range: ClosedRange<Int64>) throws(RuleGraphArtifactError) -> Int64 {
        let n: Int64?
        switch value {
        case .int(let i): n = i
        case .number(let text): n = Int64(text)
        default: throw fail("expected an integer")
        }
        guard let n else { throw fail("expected an integer from \(range.lowerBound) to \(range.upperBound)") }
        guard range.contains(n) else { throw fail("\(n) is out of range (\(range.lowerBound) to \(range.upperBound))") }
        return n
    }

    /// An index into a list of `count` things.
    func index(below count: Int, of what: String) throws(RuleGraphArtifactError) -> Int {
        let n = try int(Int64.min...Int64.max)
        guard n >= 0, n < Int64(count) else { throw fail("index \(n) is out of range (\(count) \(what))") }
        return Int(n)
    }

    func rawValue<E: RawRepresentable & CaseIterable>(_: E.Type) throws(RuleGraphArtifactError) -> E
    where E.RawValue == String {
        let s = try string()
        guard let e = E(rawValue: s) else {
            let expected = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw fail("unknown value \"\(s)\" (expected one of \(expected))")
        }
        return e
    }
}
