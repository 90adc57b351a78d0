import EntlRuntime

/// `entlc gen typescript`: plain constants and types for web back ends that call `entlc`: one
/// `as const` object per kind keyed by lower-camel identifiers, a union type of the names, and
/// the shapes of `entlc eval --format json` with names typed. Deterministic; valid under
/// `tsc --strict --noEmit`.
public enum TypeScriptGenerator {
    /// Writes the TypeScript file, or refuses names of one kind that give one identifier.
    public static func generate(_ graph: RuleGraph, _ checked: CheckedRuleSet, header: String) throws(GenerationError)
        -> String
    {
        let names = try GeneratedNames(graph, checked, escape: identifier)
        var out = "// \(header.withControlsEscaped)\n"
            + "// Do not edit: regenerate with `entlc gen typescript` when the rules change.\n\n"
        out += constants("Products", "ProductName", "The products of the rule set: what customers buy.",
                         names.products.map { e in
                             (e.identifier, e.value.name, doc(e.value.displayName, e.value.docs),
                              [("kind", string(e.value.kind.rawValue)), ("storeIds", storeIDs(e.value.storeIDs))])
                         })
        out += constants("Entitlements", "EntitlementName",
                         "The entitlements of the rule set: what a purchase unlocks.",
                         names.entitlements.map { e in
                             (e.identifier, e.value.name, doc(e.value.displayName, e.value.docs), [])
                         })
        out += constants("Features", "FeatureName", "The features of the rule set: what a customer may use.",
                         names.features.map { e in
                             (e.identifier, e.value.name, doc(e.value.displayName, e.value.docs),
                              [("kind", string(e.value.kind.rawValue)), ("unit", unit(e.value))])
                         })
        out += constants("CreditSystems", "CreditSystemName", "The credit systems of the rule set.",
                         names.creditSystems.map { e in
                             (e.identifier, e.value.name, doc(e.value.displayName, e.value.docs),
                              [("unit", unit(e.value))])
                         })
        out += resultShapes
        return out
    }

    static func constants(_ object: String, _ union: String, _ doc: String,
                          _ entries: [(identifier: String, name: String, doc: [String], fields: [(String, String)])])
        -> String
    {
        // An empty object literal would type its values `unknown`.
        guard !entries.isEmpty else {
            return "/** \(doc) */\nexport const \(object): Readonly<Record<string, { readonly name: "
                   + "\(union) }>> = {};\n\n"
                + "export type \(union) = never;\n\n"
        }
        var out = "/** \(doc) */\nexport const \(object) = {\n"
        for e in entries {
            if let doc = e.doc.first { out += "  /** \(doc) */\n" }
            let fields = [("name", string(e.name))] + e.fields
            out += "  \(e.identifier): { " + fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + " },\n"
        }
        out += "} as const;\n\n"
        out += "export type \(union) = " + entries.map { string($0.name) }.joined(separator: " | ") + ";\n\n"
        return out
    }

    /// One line for a `/** … */` comment ("display name — doc comment"), never closing it early.
    static func doc(_ displayName: String?, _ docs: String?) -> [String] {
        let text = [displayName, docs].compactMap { $0 }.map { part in
            // Line breaks and other control characters become spaces: the comment stays one line.
            String(String.UnicodeScalarView(part.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F
                || $0 == "\u{2028}" || $0 == "\u{2029}" ? " " : $0 }))
        }
        return text.isEmpty ? [] : [text.joined(separator: " — ").replacing("*/", with: "*\\/")]
    }

    static func string(_ s: String) -> String {
        var bytes: [UInt8] = []
        JSONValue.string(s).write(into: &bytes, indent: false, level: 0)
        // JSON string escapes are JavaScript's, except that U+2028 and U+2029 end a line in old engines.
        return String(decoding: bytes, as: UTF8.self).replacing("\u{2028}", with: "\\u2028")
            .replacing("\u{2029}", with: "\\u2029")
    }

    static func unit(_ f: Feature) -> String {
        guard let one = f.unitSingular ?? f.unitPlural else { return "null" }
        return "{ singular: \(string(one)), plural: \(string(f.unitPlural ?? one)) }"
    }

    /// A lower-camel name as a property name, one to one: `_` before a digit (`_9lives`).
    /// Reserved words (`default`, `in`, `class`, strict mode's `let`, `static`, …) are valid
    /// property names as they are.
    static func identifier(_ lowerCamel: String) -> String {
        GeneratedNames.startsWithDigit(lowerCamel) ? "_" + lowerCamel : lowerCamel
    }

    /// Store names are keys as written; `__proto__` as a plain key would set the object's
    /// prototype instead of a property, so it is written as a computed key.
    static func storeIDs(_ ids: [StoreID]) -> String {
        let pairs = GeneratedNames.idPerStore(ids)
        func key(_ store: String) -> String { store == "__proto__" ? "[\(string(store))]" : store }
        guard !pairs.isEmpty else { return "{}" }
        return "{ " + pairs.map { "\(key($0.store)): \(string($0.id))" }.joined(separator: ", ") + " }"
    }

    /// The JSON of `entlc eval --format json` (docs/cli.md), names typed.
    static let resultShapes = """
        export type Decision = "allowed" | "denied" | "undetermined";

        export type EntitlementStatus =
          | "active" | "trialing" | "past_due" | "canceled"
          | "billing_retry" | "revoked" | "expired" | "never_purchased" | "unknown" | "promotional";

        export interface BalanceSource {
          grant: string;
          kind: "entitlement" | "product" | "state";
          product: ProductName | null;
          allowance: number | null;
          carried: number;
          used: number;
          remaining: number | null;
          overdrawn: number;
          overdraft_left: number | null;
          window_start: string | null;
          resets_at: string | null;
          expires_at: string | null;
          certain: boolean;
          id?: string | null;
          reason?: string | null;
        }

        export interface ProductResult {
          kind: "product";
          name: ProductName;
          decision: Decision;
          allowed: boolean;
          quantity: number | null;
          valid_until: string | null;
          reason: string;
          explanation?: string[];
        }

        export interface EntitlementResult {
          kind: "entitlement";
          name: EntitlementName;
          decision: Decision;
          allowed: boolean;
          is_active: boolean;
          status: EntitlementStatus;
          product: ProductName | null;
          display_name: string | null;
          store: string | null;
          store_product_id: string | null;
          expires_at: string | null;
          trial_end: string | null;
          will_renew: boolean;
          in_grace_period: boolean;
          in_billing_retry: boolean;
          is_revoked: boolean;
          ownership: "purchased" | "family_shared" | null;
          period: string | null;
          is_trial: boolean;
          unlocked_by: ProductName[] | null;
          valid_until: string | null;
          reason: string;
          explanation?: string[];
        }

        export interface FeatureResult {
          kind: "feature";
          name: FeatureName | CreditSystemName;
          display_name: string | null;
          type: "boolean" | "metered" | "credits";
          decision: Decision;
          allowed: boolean;
          required: number | null;
          balance: number | null;
          unit: string | null;
          unlimited: boolean;
          overage: number | null;
          overdrawn: number | null;
          via: "direct" | "credits" | "overage" | null;
          replayed?: true;
          credit_system: CreditSystemName | null;
          credits_required: number | null;
          credit_balance: number | null;
          shortfall: number | null;
          unlocked_by: ProductName[] | null;
          valid_until: string | null;
          reason: string;
          sources: BalanceSource[];
          explanation?: string[];
        }

        export type EvaluationResult = ProductResult | EntitlementResult | FeatureResult;

        /** One `entlc eval --format json` answer, or one line of a batch. */
        export interface EvalOutput {
          at: string;
          environment: "live" | "test";
          customer: string | null;
          warnings?: string[];
          results: EvaluationResult[];
        }

        /** A batch line that could not be evaluated. */
        export interface EvalLineError {
          line: number;
          error: string;
        }

        """
}
