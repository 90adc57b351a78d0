import EntlSupport

/// A box-drawing dump of the AST, one node per line with its `@line:col-line:col` range, for
/// golden tests and `entlc` debugging.
///
/// ```
/// RuleFile
/// └─ Product zbucks: consumable @1:1-1:44
///    └─ StoreID app_store "CREDIT-ZBUCK" @1:25-1:42
/// ```
public struct ASTDump {
    struct Node {
        var label: String
        var range: SourceRange?
        var children: [Node] = []
    }

    public var includeRanges: Bool

    public init(includeRanges: Bool = true) {
        self.includeRanges = includeRanges
    }

    public func dump(_ file: RuleFile) -> String {
        var out = ""
        render(Node(label: "RuleFile", children: file.declarations.map(node)), prefix: "", childPrefix: "", into: &out)
        return out
    }

    private func render(_ node: Node, prefix: String, childPrefix: String, into out: inout String) {
        out += prefix + node.label
        if includeRanges, let r = node.range { out += " @\(r)" }
        out += "\n"
        for (i, child) in node.children.enumerated() {
            let last = i == node.children.count - 1
            render(child, prefix: childPrefix + (last ? "└─ " : "├─ "),
                   childPrefix: childPrefix + (last ? "   " : "│  "), into: &out)
        }
    }

    private func docs(_ lines: [String]) -> [Node] {
        lines.map { Node(label: "Doc \(quote($0))") }
    }

    private func node(_ declaration: Declaration) -> Node {
        switch declaration {
        case .app(let d):
            return Node(label: "App \(quote(d.id.value))", range: d.range, children: docs(d.docs))
        case .product(let d):
            return Node(label: "Product \(d.name): \(d.kind?.value.rawValue ?? "<missing>")", range: d.range,
                        children: docs(d.docs) + d.items.map(node))
        case .feature(let d):
            var children = docs(d.docs)
            if let r = d.requires { children.append(Node(label: "Requires", range: r.range, children: [node(r)])) }
            return Node(label: "Feature \(d.name): \(d.kind?.value.rawValue ?? "<missing>")", range: d.range,
                        children: children + d.items.map(node))
        case .credits(let d):
            return Node(label: "Credits \(d.name)", range: d.range, children: docs(d.docs) + d.items.map(node))
        case .entitlement(let d):
            return Node(label: "Entitlement \(d.name)", range: d.range,
                        children: docs(d.docs) + [node(d.expression)] + d.items.map(node))
        case .environment(let d):
            return Node(label: "Environment \(d.environment.value.rawValue)", range: d.range,
                        children: docs(d.docs) + d.declarations.map(node))
        case .test(let d):
            return Node(label: "Test \(quote(d.description.value))", range: d.range,
                        children: docs(d.docs) + d.items.map(node))
        }
    }

    private func node(_ item: Item) -> Node {
        let label: String
        switch item.kind {
        case .displayName(let s): label = "Name \(quote(s.value))"
        case .storeID(let store, let id): label = "StoreID \(store) \(quote(id.value))"
        case .period(let p): label = "Period \(p.value.rawValue)"
        case .group(let g): label = "Group \(g)"
        case .duration(let n, let u): label = "Duration \(n.value) \(u.value.rawValue)"
        case .usage(let u): label = "Usage \(u.value.rawValue)"
        case .event(let e): label = "Event \(quote(e.value))"
        case .unit(let s, let p): label = "Unit \(quote(s.value))" + (p.map { " / \(quote($0.value))" } ?? "")
        case .conversion(let f, let a, let c): label = "Conversion \(f) \(a.value) = \(c.value)"
        case .grant(let g):
            var text = "Grant \(g.feature)" + amount(g.amount) + per(g.per)
            if let c = g.carry { text += " carry" + upTo(c) }
            if let o = g.overage { text += " overage" + upTo(o) }
            if let e = g.expiresAfter { text += " expires after \(e.count.value) \(e.unit.value.rawValue)" }
            if let p = g.priority { text += " priority \(p.value)" }
            label = text
        }
        return Node(label: label, range: item.range)
    }

    private func node(_ expression: Expression) -> Node {
        switch expression {
        case .reference(let id): return Node(label: "Ref \(id)", range: id.range)
        case .everyone(let w): return Node(label: "Everyone", range: w.range)
        case .purchased(let id, let date):
            return Node(label: "Purchased \(id) \(date.relation.value.rawValue) \(quote(date.instant.value))",
                        range: expression.range)
        case .atLeast(let id, let n): return Node(label: "AtLeast \(id) >= \(n.value)", range: expression.range)
        case .not(let e, _): return Node(label: "Not", range: expression.range, children: [node(e)])
        case .and(let terms): return Node(label: "And", range: expression.range, children: terms.map(node))
        case .or(let terms): return Node(label: "Or", range: expression.range, children: terms.map(node))
        case .error: return Node(label: "Error", range: expression.range)
        }
    }

    private func node(_ item: TestItem) -> Node {
        let label: String
        switch item.kind {
        case .at(let s): label = "At \(quote(s.value))"
        case .env(let e): label = "Env \(e.value.rawValue)"
        case .state(let s): label = "State \(quote(s.value))"
        case .given(let g):
            var text = "Given \(g.product)"
            if let s = g.status { text += " \(s.value.rawValue)" }
            if let s = g.since { text += " since \(quote(s.value))" }
            if let u = g.until { text += " until \(quote(u.value))" }
            if let u = g.graceUntil { text += " grace_until \(quote(u.value))" }
            if let q = g.quantity { text += " quantity \(q.value)" }
            if g.familyShared != nil { text += " family_shared" }
            label = text
        case .used(let f, let n, let at, let id):
            label = "Used \(f) \(n.value)" + (at.map { " at \(quote($0.value))" } ?? "")
                + (id.map { " id \(quote($0.value))" } ?? "")
        case .customerSince(let s): label = "CustomerSince \(quote(s.value))"
        case .level(let f, let n, let at): label = "Level \(f) \(n.value)" + (at.map { " at \(quote($0.value))" } ?? "")
        case .override(let p, let v): label = "Override \(p) \(v.value.rawValue)"
        case .grant(let g):
            var text = "Grant \(g.name)" + amount(g.amount) + per(g.per)
            if let o = g.overage { text += " overage" + upTo(o) }
            if let f = g.from { text += " from \(quote(f.value))" }
            if let u = g.until { text += " until \(quote(u.value))" }
            label = text
        case .expect(let e):
            var text = "Expect \(e.name)"
            if let n = e.amount { text += " \(n.value)" }
            text += " \(e.decision.value.rawValue)"
            switch e.balance {
            case .amount(let n)?: text += " balance \(n.value)"
            case .unlimited?: text += " balance unlimited"
            case nil: break
            }
            switch e.via {
            case .direct?: text += " via direct"
            case .credits(_, let system)?: text += " via credits" + (system.map { " \($0)" } ?? "")
            case .overage?: text += " via overage"
            case nil: break
            }
            label = text
        }
        return Node(label: label, range: item.range)
    }

    private func amount(_ a: Grant.Amount?) -> String {
        switch a {
        case .count(let n)?: " \(n.value)"
        case .unlimited?: " unlimited"
        case nil: ""
        }
    }

    private func per(_ p: Located<ResetInterval>?) -> String { p.map { " per \($0.value.rawValue)" } ?? "" }

    private func upTo(_ c: Grant.Capped) -> String { c.cap.map { " up to \($0.value)" } ?? "" }

    /// A string as entl writes it: the escapes of its string literals (docs/language.md).
    private func quote(_ s: String) -> String {
        s.quotedLiteral(escapes: ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t"], uppercaseHex: true)
    }
}
