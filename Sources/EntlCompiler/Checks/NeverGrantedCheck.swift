import EntlSyntax

/// Feature or credit system that nothing can grant (W302).
///
/// Invariant: every feature and credit system is reachable: some product or entitlement grants
/// it, a boolean feature has a `requires`, or a credit system that is itself granted pays for it.
enum NeverGrantedCheck: LintCheck {
    static let code = DiagnosticCode("W302", "never granted")

    static func run(_ context: LintContext) {
        // Per environment: a feature both share may be granted only by the other's declarations.
        var granted: [EnvironmentName: Set<String>] = [:]
        for env in context.environments {
            var reached: Set<String> = []
            var conversions: [String: [String]] = [:]
            for declaration in context.model.declarations
            where declaration.site.environment.map({ $0 == env }) ?? true {
                if let g = grants(of: declaration) { for grant in g.grants { reached.insert(grant.feature.name) } }
                guard case .feature(let f) = declaration else { continue }
                if f.requires != nil { reached.insert(f.name.name) }
                for c in f.conversions { conversions[f.name.name, default: []].append(c.feature.name) }
            }
            // A credit system that is granted reaches the features in its schema.
            for (system, features) in conversions where reached.contains(system) {
                reached.formUnion(features)
            }
            granted[env] = reached
        }
        for case .feature(let f) in context.checkedDeclarations {
            let visible = context.environments(of: f.site)
            let never = visible.filter { granted[$0]?.contains(f.name.name) != true }
            guard !never.isEmpty else { continue }
            let place = never.count == visible.count ? "" : " in environment \(never[0].rawValue)"
            context.report(code, message(f.symbolKind.noun, f.name.name) + place, file: f.site.file,
                           at: f.name.range, label: label, help: help(f.name.name))
        }
    }
}

extension NeverGrantedCheck {
    fileprivate static func message(_ noun: String, _ name: String) -> String { "\(noun) `\(name)` is never granted" }
    fileprivate static let label = "no product, entitlement or granted credit system reaches it"
    fileprivate static func help(_ name: String) -> String {
        "add `grants \(name) …` to an entitlement or product, or remove it unless customers are granted it "
            + "(a state's `grants`)"
    }
}
