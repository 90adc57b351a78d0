import EntlSyntax

/// Feature or credit system that nothing can grant (W302).
///
/// Invariant: every feature and credit system is reachable: some product or entitlement grants
/// it, a boolean feature has a `requires`, or a credit system that is itself granted pays for it.
enum NeverGrantedCheck: LintCheck {
    static let code = DiagnosticCode("W302", "never granted")

    static func run(_ context: LintContext) {
        var granted: Set<String> = []
        var conversions: [String: [String]] = [:]
        for site in context.declarations {
            if let g = grants(of: site.declaration) { for grant in g.grants { granted.insert(grant.feature.name) } }
            switch site.declaration {
            case .feature(let f) where f.requires != nil:
                granted.insert(f.name.name)
            case .credits(let c):
                for item in c.items {
                    if case .conversion(let f, _, _) = item.kind { conversions[c.name.name, default: []].append(f.name) }
                }
            default:
                break
            }
        }
        // A credit system that is granted reaches the features in its schema.
        for (system, features) in conversions where granted.contains(system) {
            granted.formUnion(features)
        }
        for site in context.checkedDeclarations {
            let name: Identifier, noun: String
            switch site.declaration {
            case .feature(let f): (name, noun) = (f.name, "feature")
            case .credits(let c): (name, noun) = (c.name, "credit system")
            default: continue
            }
            guard !granted.contains(name.name) else { continue }
            context.report(code, message(noun, name.name), file: site.file, at: name.range, label: label, help: help(name.name))
        }
    }
}

extension NeverGrantedCheck {
    fileprivate static func message(_ noun: String, _ name: String) -> String { "\(noun) `\(name)` is never granted" }
    fileprivate static let label = "no product, entitlement or granted credit system reaches it"
    fileprivate static func help(_ name: String) -> String {
        "add `grants \(name) …` to an entitlement or product, or remove it"
    }
}
