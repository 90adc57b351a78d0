import EntlCompiler
import EntlSupport
import EntlSyntax

/// Hover: what a name is (its declaration as a code block), its doc comment, and how it is
/// connected: what grants it, what it grants, what it unlocks, how credits pay for it. On a clause
/// word of a grant or a test's `grant` and `via overage`: what the clause means (`KeywordHover`).
extension Analysis {
    /// The hover text of the name at `offset` (Markdown, one section per declaration it resolves
    /// to) and the range of the name, or of the clause word there; nil when there is neither.
    public func hover(in file: String, at offset: Int) -> (markdown: String, range: SourceRange)? {
        guard let (o, symbols) = resolve(in: file, at: offset) else { return keywordHover(in: file, at: offset) }
        return (symbols.map { Hover.describe($0, in: checked.model) }.joined(separator: "\n\n---\n\n"), o.range)
    }
}

enum Hover {
    /// Markdown for a declaration: its header, kind and environment, doc comment, then what its
    /// block says (in the order it says it) and how other declarations use it.
    static func describe(_ symbol: Symbol, in model: RuleModel) -> String {
        let name = symbol.name
        var header: String
        /// What the block says, by where it says it.
        var written: [(at: SourceRange, fact: String)] = []
        var facts: [String] = []
        let declaration = model.declarations[symbol.site]
        switch declaration {
        case .product(let p):
            header = "product \(name)" + (p.kind.map { ": " + $0.value.rawValue } ?? "")
            if let s = p.displayName { written.append((s.range, "display name: \"\(s.value.withControlsEscaped)\"")) }
            if let period = p.period { written.append((period.range, "period: `\(period.value.rawValue)`")) }
            for id in p.storeIDs {
                written.append((id.range, "store id: \(id.store.name) `\(id.id.value.withControlsEscaped)`"))
            }
            if let d = p.duration { written.append((d.range, "duration: \(d.count.value) \(d.unit.value.rawValue)")) }
            if let g = p.group { written.append((g.range, "group: `\(g.name)`")) }
            for g in p.grants { written.append((g.range, "grants `\(g)`")) }
            let unlocks = users(of: name, in: model)
            if !unlocks.isEmpty { facts.append("unlocks: " + unlocks.joined(separator: ", ")) }
        case .feature(let f) where f.isCreditSystem:
            header = "credits \(name)"
            if let u = f.unit { written.append((u.range, unit(u))) }
            for c in f.conversions {
                written.append((c.range, "pays for `\(c.feature.name)`: \(c.amount.value.literal) = "
                                + "\(c.credits.value.literal) credits"))
            }
            facts += grantedBy(name, in: model)
        case .feature(let f):
            header = "feature \(name)" + (f.kind.map { ": " + $0.value.rawValue } ?? "")
            if let r = f.requires { header += " requires \(r)" }
            if let s = f.displayName { written.append((s.range, "display name: \"\(s.value.withControlsEscaped)\"")) }
            if let u = f.usage { written.append((u.range, "usage: `\(u.value.rawValue)`")) }
            if let e = f.event { written.append((e.range, "event: \"\(e.value.withControlsEscaped)\"")) }
            if let u = f.unit { written.append((u.range, unit(u))) }
            facts += grantedBy(name, in: model) + paidBy(name, in: model)
        case .entitlement(let e):
            header = "entitlement \(name) = \(e.constraint)"
            for g in e.grants { written.append((g.range, "grants `\(g)`")) }
            let unlocks = users(of: name, in: model)
            if !unlocks.isEmpty { facts.append("required by: " + unlocks.joined(separator: ", ")) }
        case .app, .test:
            header = name
        }
        facts = written.sorted { $0.at.start.offset < $1.at.start.offset }.map(\.fact) + facts
        var out = "```entl\n\(header)\n```\n\n(\(symbol.kind.detail)"
        if let env = declaration.site.environment { out += ", environment `\(env.rawValue)`" }
        out += ")"
        let doc = docComment(declaration.named?.docs ?? [])
        if !doc.isEmpty { out += "\n\n" + doc }
        if !facts.isEmpty { out += "\n\n" + facts.map { "- " + $0 }.joined(separator: "\n") }
        return out
    }

    private static func unit(_ u: RuleModel.Unit) -> String {
        "unit: \"\(u.singular.value.withControlsEscaped)\""
            + (u.plural.map { " / \"\($0.value.withControlsEscaped)\"" } ?? "")
    }

    /// The entitlements and features whose constraint names `name`.
    private static func users(of name: String, in model: RuleModel) -> [String] {
        var out: [String] = []
        for declaration in model.declarations {
            switch declaration {
            case .entitlement(let e) where e.constraint.references.contains(where: { $0.name == name }):
                out.append("entitlement `\(e.name.name)`")
            case .feature(let f) where f.requires?.references.contains(where: { $0.name == name }) == true:
                out.append("feature `\(f.name.name)` (requires)")
            default: break
            }
        }
        return out
    }

    /// "granted by entitlement `pro`: `api_calls 10_000 per month`", one line per grant.
    private static func grantedBy(_ name: String, in model: RuleModel) -> [String] {
        var out: [String] = []
        for declaration in model.declarations {
            let (noun, owner, grants): (String, Identifier, [Grant])
            switch declaration {
            case .product(let p): (noun, owner, grants) = ("product", p.name, p.grants)
            case .entitlement(let e): (noun, owner, grants) = ("entitlement", e.name, e.grants)
            default: continue
            }
            for g in grants where g.feature.name == name {
                let env = declaration.site.environment.map { " (environment `\($0.rawValue)`)" } ?? ""
                out.append("granted by \(noun) `\(owner.name)`\(env): `\(g)`")
            }
        }
        return out
    }

    /// The credit systems that pay for a feature.
    private static func paidBy(_ name: String, in model: RuleModel) -> [String] {
        var out: [String] = []
        for case .feature(let system) in model.declarations where system.isCreditSystem {
            for c in system.conversions where c.feature.name == name {
                out.append("paid with `\(system.name.name)`: "
                           + "\(c.amount.value.literal) = \(c.credits.value.literal) credits")
            }
        }
        return out
    }
}
