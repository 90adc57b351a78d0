import EntlCompiler
import EntlRuntime
import EntlSyntax

/// Hover: what a name is (its declaration as a code block), its doc comment, and how it is
/// connected: what grants it, what it grants, what it unlocks, how credits pay for it.
extension LanguageServer {
    func hover(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        guard let (analysis, o, symbols) = try resolve(params) else { return .null }
        let text = symbols.map { Self.describe($0, in: analysis.checked) }.joined(separator: "\n\n---\n\n")
        return .object([
            "contents": .object(["kind": .string("markdown"), "value": .string(text)]),
            "range": analysis.lines[o.file]?.range(o.range) ?? .null,
        ])
    }

    /// Markdown for a declaration.
    static func describe(_ symbol: Symbol, in checked: CheckedRuleSet) -> String {
        let site = checked.declarations[symbol.site]
        let name = symbol.name
        var header: String
        var facts: [String] = []
        switch site.declaration {
        case .product(let d):
            header = "product \(name)" + (d.kind.map { ": " + $0.value.rawValue } ?? "")
            for item in d.items {
                switch item.kind {
                case .displayName(let s): facts.append("display name: \"\(s.value)\"")
                case .period(let p): facts.append("period: `\(p.value.rawValue)`")
                case .storeID(let store, let id): facts.append("store id: \(store.name) `\(id.value)`")
                case .duration(let n, let unit): facts.append("duration: \(n.value) \(unit.value.rawValue)")
                case .group(let g): facts.append("group: `\(g.name)`")
                case .grant(let g): facts.append("grants `\(g)`")
                default: break
                }
            }
            let unlocks = users(of: name, in: checked)
            if !unlocks.isEmpty { facts.append("unlocks: " + unlocks.joined(separator: ", ")) }
        case .feature(let d):
            header = "feature \(name)" + (d.kind.map { ": " + $0.value.rawValue } ?? "")
            if let r = d.requires { header += " requires \(r)" }
            for item in d.items {
                switch item.kind {
                case .displayName(let s): facts.append("display name: \"\(s.value)\"")
                case .usage(let u): facts.append("usage: `\(u.value.rawValue)`")
                case .event(let e): facts.append("event: \"\(e.value)\"")
                case .unit(let one, let many): facts.append("unit: \"\(one.value)\"" + (many.map { " / \"\($0.value)\"" } ?? ""))
                default: break
                }
            }
            facts += grantedBy(name, in: checked)
            facts += paidBy(name, in: checked)
        case .credits(let d):
            header = "credits \(name)"
            for item in d.items {
                switch item.kind {
                case .unit(let one, let many): facts.append("unit: \"\(one.value)\"" + (many.map { " / \"\($0.value)\"" } ?? ""))
                case .conversion(let f, let amount, let credits):
                    facts.append("pays for `\(f.name)`: \(amount.value.literal) = \(credits.value.literal) credits")
                default: break
                }
            }
            facts += grantedBy(name, in: checked)
        case .entitlement(let d):
            header = "entitlement \(name) = \(d.expression)"
            for item in d.items { if case .grant(let g) = item.kind { facts.append("grants `\(g)`") } }
            let unlocks = users(of: name, in: checked)
            if !unlocks.isEmpty { facts.append("required by: " + unlocks.joined(separator: ", ")) }
        case .app, .environment, .test:
            header = name
        }
        var out = "```entl\n\(header)\n```\n\n(\(symbol.kind.detail)"
        if let env = site.environment { out += ", environment `\(env.rawValue)`" }
        out += ")"
        let doc = docComment(site.declaration)
        if !doc.isEmpty { out += "\n\n" + doc }
        if !facts.isEmpty { out += "\n\n" + facts.map { "- " + $0 }.joined(separator: "\n") }
        return out
    }

    /// The entitlements and features whose constraint names `name`.
    private static func users(of name: String, in checked: CheckedRuleSet) -> [String] {
        var out: [String] = []
        for site in checked.declarations {
            switch site.declaration {
            case .entitlement(let d) where d.expression.references.contains(where: { $0.name == name }):
                out.append("entitlement `\(d.name.name)`")
            case .feature(let d) where d.requires?.references.contains(where: { $0.name == name }) == true:
                out.append("feature `\(d.name.name)` (requires)")
            default: break
            }
        }
        return out
    }

    /// "granted by entitlement `pro`: `api_calls 10_000 per month`", one line per grant.
    private static func grantedBy(_ name: String, in checked: CheckedRuleSet) -> [String] {
        var out: [String] = []
        for site in checked.declarations {
            let (noun, owner, items): (String, Identifier, [Item])
            switch site.declaration {
            case .product(let d): (noun, owner, items) = ("product", d.name, d.items)
            case .entitlement(let d): (noun, owner, items) = ("entitlement", d.name, d.items)
            default: continue
            }
            for item in items {
                guard case .grant(let g) = item.kind, g.feature.name == name else { continue }
                let env = site.environment.map { " (environment `\($0.rawValue)`)" } ?? ""
                out.append("granted by \(noun) `\(owner.name)`\(env): `\(g)`")
            }
        }
        return out
    }

    /// The credit systems that pay for a feature.
    private static func paidBy(_ name: String, in checked: CheckedRuleSet) -> [String] {
        var out: [String] = []
        for site in checked.declarations {
            guard case .credits(let d) = site.declaration else { continue }
            for item in d.items {
                if case .conversion(let f, let amount, let credits) = item.kind, f.name == name {
                    out.append("paid with `\(d.name.name)`: \(amount.value.literal) = \(credits.value.literal) credits")
                }
            }
        }
        return out
    }
}
