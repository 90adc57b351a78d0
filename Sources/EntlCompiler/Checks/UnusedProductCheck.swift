import EntlSyntax

/// Unused product (W301).
///
/// Invariant: every product unlocks something — a constraint names it, or it grants something
/// itself. A product that does neither gives its buyers nothing: a leftover or a typo.
enum UnusedProductCheck: LintCheck {
    static let code = DiagnosticCode("W301", "unused product")

    static func run(_ context: LintContext) {
        // Per environment: a product both share may be named only by the other's declarations.
        var referenced: [EnvironmentName: Set<String>] = [:]
        for env in context.environments {
            for site in context.declarations where site.isVisible(in: env) {
                if let c = constraint(of: site.declaration) {
                    for r in c.expression.references { referenced[env, default: []].insert(r.name) }
                }
            }
        }
        for case .product(let p) in context.checkedDeclarations where p.grants.isEmpty {
            let visible = context.environments(of: p.site)
            let unused = visible.filter { referenced[$0]?.contains(p.name.name) != true }
            guard !unused.isEmpty else { continue }
            let place = unused.count == visible.count ? "" : " in environment \(unused[0].rawValue)"
            context.report(code, message(p.name.name) + place, file: p.site.file, at: p.name.range, label: label,
                           help: help(p.name.name))
        }
    }
}

extension UnusedProductCheck {
    fileprivate static func message(_ name: String) -> String { "product `\(name)` is never used" }
    fileprivate static let label = "no constraint names it and it grants nothing"
    fileprivate static func help(_ name: String) -> String {
        "name it in an entitlement (`entitlement premium = \(name) { … }`), give it a `grants` item, or remove it"
    }
}
