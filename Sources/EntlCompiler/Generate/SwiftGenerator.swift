import EntlRuntime
import EntlSupport

/// `entlc gen swift`: typed identifiers for app code, so a renamed feature is a compile error and
/// not a silent denial. One value type per kind (`EntlProduct`, `EntlEntitlement`, `EntlFeature`,
/// `EntlCreditSystem`) with a static constant per declaration, and typed queries on `Evaluator`
/// and `Evaluation` that call the string ones. Deterministic: the same rules give the same bytes.
public enum SwiftGenerator {
    /// The words a declaration needs backticks for (`` static let `default` ``): Swift's
    /// keywords that a lower-camel name can spell, checked with swiftc in the tests. Contextual
    /// keywords (`open`, `some`, `async`, …) need none but are harmless in backticks.
    static let keywords: Set<String> = [
        "associatedtype", "break", "case", "catch", "class", "continue", "default", "defer", "deinit", "do", "else",
        "enum", "extension", "fallthrough", "false", "fileprivate", "for", "func", "guard", "if", "import", "in",
        "init", "inout", "internal", "is", "let", "nil", "open", "operator", "precedencegroup", "private", "protocol",
        "public", "repeat", "rethrows", "return", "static", "struct", "subscript", "super", "switch", "throw",
        "throws", "true", "try", "typealias", "var", "where", "while", "as", "any", "some", "await", "async",
    ]
    /// Names a generated type uses itself, and Swift's special member names (`T.self`, `T.init`):
    /// these get a trailing `_` (`name_`, `self_`).
    static let reserved: Set<String> = [
        "name", "kind", "storeIDs", "unitSingular", "unitPlural", "id", "allCases", "named", "self", "init", "deinit",
        "subscript", "description", "hashValue", "hash", "Type", "Protocol",
    ]

    /// A lower-camel name as a Swift identifier, one to one: `_` before a digit (`_9lives`), `_`
    /// after a reserved name (`self_`), backticks around a keyword (`` `default` ``).
    static func identifier(_ lowerCamel: String) -> String {
        if GeneratedNames.startsWithDigit(lowerCamel) { return "_" + lowerCamel }
        if reserved.contains(lowerCamel) { return lowerCamel + "_" }
        return lowerCamel
    }

    /// Writes the Swift file, or refuses names of one kind that give one identifier.
    public static func generate(_ graph: RuleGraph, _ checked: CheckedRuleSet, header: String) throws(GenerationError)
        -> String
    {
        let names = try GeneratedNames(graph, checked, escape: identifier)
        var out = """
            // \(header.withControlsEscaped)
            // Do not edit: regenerate with `entlc gen swift` when the rules change.

            import EntlRuntime


            """
        out += type("EntlProduct", doc: "A product of the rule set: what customers buy.",
                    fields: [("kind", "ProductKind"), ("storeIDs", "[String: String]")],
                    fieldDocs: ["How it is sold.", "Its product id at each store that sells it."],
                    entries: names.products.map { e in
                        (e.identifier, e.value.name, docLines(e.value.displayName, e.value.docs),
                         [".\(caseName(e.value.kind.rawValue))", dictionary(e.value.storeIDs)])
                    })
        out += type("EntlEntitlement", doc: "An entitlement of the rule set: what a purchase unlocks.", fields: [],
                    fieldDocs: [], entries: names.entitlements.map { e in
                        (e.identifier, e.value.name, docLines(e.value.displayName, e.value.docs), [])
                    })
        out += type("EntlFeature", doc: "A feature of the rule set: what a customer may use.",
                    fields: [("kind", "FeatureKind"), ("unitSingular", "String?"), ("unitPlural", "String?"),
                             ("id", "FeatureID")],
                    fieldDocs: ["Boolean, or metered (single use, continuous).", "The unit of one (\"call\").",
                                "The unit of several (\"calls\").", idDoc],
                    entries: names.features.map { e in
                        (e.identifier, e.value.name, docLines(e.value.displayName, e.value.docs),
                         [".\(caseName(e.value.kind.rawValue))", literal(e.value.unitSingular),
                          literal(e.value.unitPlural), featureID(e.value.name, in: graph)])
                    })
        out += type("EntlCreditSystem",
                    doc: "A credit system of the rule set: a currency that pays for metered features.",
                    fields: [("unitSingular", "String?"), ("unitPlural", "String?"), ("id", "FeatureID")],
                    fieldDocs: ["The unit of one (\"credit\").", "The unit of several (\"credits\").", idDoc],
                    entries: names.creditSystems.map { e in
                        (e.identifier, e.value.name, docLines(e.value.displayName, e.value.docs),
                         [literal(e.value.unitSingular), literal(e.value.unitPlural),
                          featureID(e.value.name, in: graph)])
                    })
        out += queries
        return out
    }

    static let idDoc = "Resolved for these rules: a repeated check by it hashes no name (an evaluator of other "
        + "rules resolves it by its name)."

    /// `FeatureID(name: …, index: …)` of a feature or credit system of `graph`.
    static func featureID(_ name: String, in graph: RuleGraph) -> String {
        "FeatureID(name: \(literal(name)), index: \(graph.featureID(named: name)?.index ?? -1))"
    }

    /// A value type with one static constant per declaration, `allCases` and a lookup by name.
    static func type(_ typeName: String, doc: String, fields: [(String, String)], fieldDocs: [String],
                     entries: [(identifier: String, name: String, doc: [String], values: [String])]) -> String {
        var out = "/// \(doc)\npublic struct \(typeName): Hashable, Sendable, CustomStringConvertible {\n"
        out += "    /// The name in the rules.\n    public let name: String\n"
        for (i, field) in fields.enumerated() {
            out += "    /// \(fieldDocs[i])\n    public let \(field.0): \(field.1)\n"
        }
        out += "\n    public var description: String { name }\n"
        for e in entries {
            out += "\n" + e.doc.map { $0.isEmpty ? "    ///\n" : "    /// \($0)\n" }.joined()
            let args = [("name", literal(e.name))] + zip(fields.map(\.0), e.values).map { ($0, $1) }
            out += "    public static let \(escaped(e.identifier)) = \(typeName)("
                + args.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + ")\n"
        }
        out += "\n    /// Every one, in declaration order.\n"
        out += "    public static let allCases: [\(typeName)] = ["
            + entries.map { "." + escaped($0.identifier) }.joined(separator: ", ") + "]\n"
        out += "\n    /// The one with this name in the rules, if any.\n"
        out += "    public static func named(_ name: String) -> \(typeName)? { allCases.first { $0.name == name } }\n"
        out += "}\n\n"
        return out
    }

    /// The typed queries. A line ending in `\` continues on the next: some generated lines are longer
    /// than the 120 columns of ours.
    static let queries = """
        extension Evaluator {
            /// May the customer use `feature` (`requiredBalance` units of a metered one)?
            public func entitled(_ feature: EntlFeature, requiredBalance: Int64 = 1, at: Instant = .now()) \
        throws(EvaluationError)
                -> FeatureResult
            {
                try entitled(feature.id, requiredBalance: requiredBalance, at: at)
            }

            /// Does the credit system hold `requiredBalance` credits? (Labelled, as products are: a
            /// feature, a credit system and a product may share an identifier, and `.storage` must
            /// not start to mean another one when one is added.)
            public func entitled(credits: EntlCreditSystem, requiredBalance: Int64 = 1, at: Instant = .now())
                throws(EvaluationError) -> FeatureResult
            {
                try entitled(credits.id, requiredBalance: requiredBalance, at: at)
            }

            /// Does the customer own `product`?
            public func entitled(product: EntlProduct, at: Instant = .now()) throws(EvaluationError) \
        -> ProductResult {
                try entitled(product: product.name, at: at)
            }

            /// Is the entitlement active, through what, until when?
            public func entitlement(_ entitlement: EntlEntitlement, at: Instant = .now()) throws(EvaluationError)
                -> EntitlementResult
            {
                try self.entitlement(entitlement.name, at: at)
            }

            /// The products any one of which, bought now, would allow `feature`; nil when it is allowed.
            public func unlockingProducts(_ feature: EntlFeature, requiredBalance: Int64 = 1, at: Instant = .now())
                throws(EvaluationError) -> [EntlProduct]?
            {
                try unlockingProducts(feature: feature.name, requiredBalance: requiredBalance, at: at)?\
        .compactMap(EntlProduct.named)
            }
        }

        extension Evaluation {
            public func feature(_ feature: EntlFeature, required: Int64 = 1) throws(EvaluationError) -> FeatureResult {
                try self.feature(feature.name, required: required)
            }

            public func feature(credits: EntlCreditSystem, required: Int64 = 1) throws(EvaluationError) \
        -> FeatureResult {
                try self.feature(credits.name, required: required)
            }

            public func product(_ product: EntlProduct) throws(EvaluationError) -> ProductResult {
                try self.product(product.name)
            }

            public func entitlement(_ entitlement: EntlEntitlement) throws(EvaluationError) -> EntitlementResult {
                try self.entitlement(entitlement.name)
            }
        }

        """

    static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// `non_consumable` → `nonConsumable`: the runtime's case names.
    static func caseName(_ raw: String) -> String { GeneratedNames.lowerCamel(raw) }

    /// The lines of a declaration's `///` comment: its display name, a blank line, its doc
    /// comment. Split at every `\n` and `\r` (either would end the comment and leave the rest of
    /// the line as code); other control characters become spaces (swiftc warns about NUL).
    static func docLines(_ displayName: String?, _ docs: String?) -> [String] {
        var text: [String] = []
        if let displayName { text.append(displayName) }
        if let docs {
            if !text.isEmpty { text.append("") }
            text.append(docs)
        }
        return text.flatMap { paragraph in
            paragraph.unicodeScalars.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }.map { line in
                String(String.UnicodeScalarView(line.map { control($0) ? " " : $0 }))
            }
        }
    }

    /// A C0 control character other than tab, or DEL.
    private static func control(_ c: Unicode.Scalar) -> Bool {
        (c.value < 0x20 && c != "\t") || c.value == 0x7F
    }

    static func literal(_ s: String?) -> String {
        s?.quotedLiteral(escapes: ["\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\r": "\\r", "\t": "\\t"],
                         uppercaseHex: false) ?? "nil"
    }

    static func dictionary(_ ids: [StoreID]) -> String {
        let pairs = GeneratedNames.idPerStore(ids)
        guard !pairs.isEmpty else { return "[:]" }
        return "[" + pairs.map { "\(literal($0.store)): \(literal($0.id))" }.joined(separator: ", ") + "]"
    }
}
