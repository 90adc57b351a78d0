import EntlRuntime
import EntlSupport

/// A picture of a compiled rule graph (`entlc graph`): products → entitlements → features and
/// credit systems. `and`/`or`/`not` become small junction nodes; grant edges carry the
/// allowance, interval and carry; credit edges the conversion ratio. One model, rendered as
/// Graphviz DOT, Mermaid (renders on GitHub) or JSON.
public struct GraphPicture: Sendable {
    public enum NodeKind: String, Sendable {
        case product, entitlement, feature, credits, junction
    }

    public enum EdgeKind: String, Sendable {
        /// A purchase or entitlement feeding a constraint.
        case constraint
        /// A boolean feature's `requires`.
        case requires
        case grant
        /// A credit system paying for a feature.
        case credit
    }

    public struct Node: Sendable {
        public var id: String
        public var kind: NodeKind
        public var name: String
        /// A second line: the kind, period, duration…
        public var detail: String?
        public var docs: String?
    }

    public struct Edge: Sendable {
        public var from: String
        public var to: String
        public var kind: EdgeKind
        public var label: String?
    }

    public private(set) var nodes: [Node] = []
    public private(set) var edges: [Edge] = []
    public let environment: Environment
    private var junctions = 0

    public init(_ graph: RuleGraph, environment: Environment) {
        self.environment = environment
        let g = graph[environment]
        for p in g.products {
            var detail = p.kind.rawValue
            if let period = p.period { detail += " · " + period.rawValue }
            if let group = p.group { detail += " · group " + group }
            nodes.append(Node(id: "product_" + p.name, kind: .product, name: p.name, detail: detail, docs: p.docs))
        }
        for e in g.entitlements {
            nodes.append(Node(id: "entitlement_" + e.name, kind: .entitlement, name: e.name, detail: nil, docs: e.docs))
        }
        for f in g.features {
            let kind: NodeKind = f.kind == .credits ? .credits : .feature
            let detail = switch f.kind {
            case .credits: "credits"
            case .boolean: "boolean"
            case .continuous: "metered · level"
            case .singleUse: "metered"
            }
            nodes.append(Node(id: GraphPicture.id(f), kind: kind, name: f.name, detail: detail, docs: f.docs))
        }
        for e in g.entitlements {
            addConstraint(e.constraint, into: "entitlement_" + e.name, g, kind: .constraint)
        }
        for f in g.features {
            if let r = f.requires { addConstraint(r, into: GraphPicture.id(f), g, kind: .requires) }
        }
        for f in g.features {
            for grant in f.grants {
                let from: String
                var perUnit = false
                switch grant.source {
                case .product(let p):
                    from = "product_" + g.products[p].name
                    perUnit = g.products[p].kind == .consumable
                case .entitlement(let e):
                    from = "entitlement_" + g.entitlements[e].name
                case .state:
                    continue  // lowering makes none
                }
                edges.append(Edge(from: from, to: GraphPicture.id(f), kind: .grant,
                                  label: GraphPicture.label(grant, f, perUnit: perUnit)))
            }
        }
        for system in g.features where system.kind == .credits {
            for c in system.conversions {
                let f = g.features[c.feature]
                let label = "\(f.amount(c.amount)) = \(system.amount(c.credits))"
                edges.append(Edge(from: GraphPicture.id(system), to: GraphPicture.id(f), kind: .credit, label: label))
            }
        }
    }

    private static func id(_ f: Feature) -> String {
        (f.kind == .credits ? "credits_" : "feature_") + f.name
    }

    /// "10,000 / month · carry ≤ 1,000 · overage ≤ 5,000 · priority 1", "1,000 · expires after 12 months"
    /// `perUnit`: a consumable's grant, counted once per unit held ("1,000 credits × units").
    static func label(_ g: Grant, _ f: Feature, perUnit: Bool = false) -> String? {
        var parts: [String] = []
        switch g.amount {
        case .none: break
        case .unlimited: parts.append("unlimited")
        case .count(let n):
            parts.append(f.amount(n) + (perUnit ? " × units" : "") + (g.interval.map { " / \($0.noun)" } ?? ""))
        }
        switch g.carry {
        case .uncapped?: parts.append("carry")
        case .upTo(let n)?: parts.append("carry ≤ " + n.grouped)
        case nil: break
        }
        switch g.overage {
        case .unbounded?: parts.append("overage")
        case .upTo(let n)?: parts.append("overage ≤ " + n.grouped)
        case nil: break
        }
        if let step = g.expiresAfter {
            let (n, unit) = step.months > 0 ? (step.months, "month") : (step.seconds / 86_400, "day")
            parts.append("expires after \(n.grouped) \(unit)\(n == 1 ? "" : "s")")
        }
        if g.priority != 0 { parts.append("priority \(g.priority)") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// Edges from the constraint's inputs into `target`, through junction nodes.
    private mutating func addConstraint(_ c: Constraint, into target: String, _ g: EnvironmentGraph, kind: EdgeKind,
                                        label: String? = nil) {
        let edgeLabel = kind == .requires ? ["requires", label].compactMap { $0 }.joined(separator: " ") : label
        switch c {
        case .product(let p):
            edges.append(Edge(from: "product_" + g.products[p].name, to: target, kind: kind, label: edgeLabel))
        case .entitlement(let e):
            edges.append(Edge(from: "entitlement_" + g.entitlements[e].name, to: target, kind: kind, label: edgeLabel))
        case .atLeast(let p, let n):
            let l = "≥ \(n.grouped)"
            edges.append(Edge(from: "product_" + g.products[p].name, to: target, kind: kind,
                              label: kind == .requires ? "requires " + l : l))
        case .everyone:
            edges.append(Edge(from: junction("everyone"), to: target, kind: kind, label: edgeLabel))
        case .purchased(let p, let date):
            let l = "purchased \(date.before ? "before" : "since") \(date.instant)"
            edges.append(Edge(from: "product_" + g.products[p].name, to: target, kind: kind,
                              label: kind == .requires ? "requires " + l : l))
        case .not(let inner):
            let j = junction("not")
            addConstraint(inner, into: j, g, kind: .constraint)
            edges.append(Edge(from: j, to: target, kind: kind, label: edgeLabel))
        case .and(let terms), .or(let terms):
            let isAnd: Bool = if case .and = c { true } else { false }
            let j = junction(isAnd ? "and" : "or")
            for t in terms { addConstraint(t, into: j, g, kind: .constraint) }
            edges.append(Edge(from: j, to: target, kind: kind, label: edgeLabel))
        }
    }

    private mutating func junction(_ operator: String) -> String {
        junctions += 1
        let id = "j\(junctions)"
        nodes.append(Node(id: id, kind: .junction, name: `operator`, detail: nil, docs: nil))
        return id
    }

    // MARK: - Renderings

    /// Graphviz DOT; doc comments become tooltips.
    public var dot: String {
        func q(_ s: String) -> String {
            "\"" + s.replacingAll("\\", "\\\\").replacingAll("\"", "\\\"").oneLine(breaks: "\\n") + "\""
        }
        var out = "digraph entl {\n"
        out += "  graph [rankdir=LR, fontname=\"Helvetica\", "
               + "label=\(q("entl rule graph (\(environment.rawValue))")), labelloc=t];\n"
        out += "  node [fontname=\"Helvetica\", fontsize=11];\n  edge [fontname=\"Helvetica\", fontsize=10, "
               + "color=\"#475569\"];\n"
        for n in nodes {
            let label = n.detail.map { n.name + "\n" + $0 } ?? n.name
            var attributes: [String]
            switch n.kind {
            case .product: attributes = ["shape=box", "style=\"rounded,filled\"", "fillcolor=\"#dbeafe\""]
            case .entitlement: attributes = ["shape=hexagon", "style=filled", "fillcolor=\"#dcfce7\""]
            case .feature: attributes = ["shape=note", "style=filled", "fillcolor=\"#fef9c3\""]
            case .credits: attributes = ["shape=cylinder", "style=filled", "fillcolor=\"#fde68a\""]
            case .junction: attributes = ["shape=circle", "width=0.4", "fixedsize=true", "fontsize=9"]
            }
            attributes.append("label=" + q(label))
            if let docs = n.docs { attributes.append("tooltip=" + q(docs)) }
            out += "  \(n.id) [\(attributes.joined(separator: ", "))];\n"
        }
        for e in edges {
            var attributes: [String] = []
            if let l = e.label { attributes.append("label=" + q(l)) }
            if e.kind == .credit { attributes.append("style=dashed") }
            if e.kind == .grant { attributes.append("color=\"#15803d\"") }
            let list = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            out += "  \(e.from) -> \(e.to)\(list);\n"
        }
        return out + "}\n"
    }

    /// A Mermaid flowchart (GitHub renders it in Markdown).
    public var mermaid: String {
        func q(_ s: String) -> String { "\"" + s.replacingAll("\"", "#quot;").oneLine(breaks: "<br/>") + "\"" }
        var out = "flowchart LR\n"
        for n in nodes {
            let label = q(n.detail.map { n.name + "<br/>" + $0 } ?? n.name)
            switch n.kind {
            case .product: out += "  \(n.id)[\(label)]:::product\n"
            case .entitlement: out += "  \(n.id){{\(label)}}:::entitlement\n"
            case .feature: out += "  \(n.id)[/\(label)/]:::feature\n"
            case .credits: out += "  \(n.id)[(\(label))]:::credits\n"
            case .junction: out += "  \(n.id)((\(label))):::junction\n"
            }
        }
        for e in edges {
            let arrow = e.kind == .credit ? "-.->" : "-->"
            out += "  \(e.from) \(arrow)" + (e.label.map { "|\(q($0))|" } ?? "") + " \(e.to)\n"
        }
        out += """
          classDef product fill:#dbeafe,stroke:#1e3a8a
          classDef entitlement fill:#dcfce7,stroke:#166534
          classDef feature fill:#fef9c3,stroke:#854d0e
          classDef credits fill:#fde68a,stroke:#92400e
          classDef junction fill:#ffffff,stroke:#475569

        """
        return out
    }

    public var json: JSONValue {
        .object([
            ("environment", .string(environment.rawValue)),
            ("nodes", .array(nodes.map { n in
                .object([("id", .string(n.id)), ("kind", .string(n.kind.rawValue)), ("name", .string(n.name)),
                         ("detail", .string(n.detail)), ("docs", .string(n.docs))])
            })),
            ("edges", .array(edges.map { e in
                .object([("from", .string(e.from)), ("to", .string(e.to)), ("kind", .string(e.kind.rawValue)),
                         ("label", .string(e.label))])
            })),
        ])
    }
}

extension String {
    /// The text on one line of the picture's source: each `\n` written `breaks`, every other
    /// control character (C0, DEL, C1) and U+2028/U+2029 a space. (A unit or a doc comment may
    /// hold any of them; a raw NUL had made Graphviz refuse the file.)
    fileprivate func oneLine(breaks: String) -> String {
        replacingScalars { c in
            if c == "\n" { return breaks }
            return String.breaksALine(c) ? " " : nil
        }
    }

    fileprivate func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
