import EntlSyntax

/// Redundant term (W305).
///
/// Invariant: every term of a constraint matters. A term is redundant when the whole constraint
/// means the same without it (`a or (a and b)`, `a and a`, `pro and (pro or lifetime)`), decided
/// exactly on BDDs: the term is replaced by the identity of its `and`/`or` and the result compared
/// with the original. Terms are tried last to first, larger before smaller, so of two equal terms
/// the second is reported. Also: `x >= 1` on a consumable (that is `x`) and `not not x`.
enum RedundantTermCheck: LintCheck {
    static let code = DiagnosticCode("W305", "redundant term")
    /// Larger constraints are skipped (each term costs one pass up the tree).
    static let maxTerms = 64

    static func run(_ context: LintContext) {
        context.forEachConstraint { site, owner, e, analysis in
            reportSpelling(e, owner: owner, file: site.file, context: context)
            let tree = Tree(e)
            guard tree.nodes.count <= maxTerms else { return }
            // A constraint true for everyone is W304's, unless it says so with `everyone`:
            // `everyone or p` is `everyone`, and `p` is redundant.
            guard let f = analysis.value(of: site.declaration), analysis.usable, !analysis.isImpossible(f),
                  context.saysEveryone(e, analysis) || !analysis.isAlwaysTrue(f) else { return }
            for term in tree.redundantTerms(analysis) {
                let range = tree.nodes[term].expression.range
                context.report(code, message(context.text(site.file, range), owner), file: site.file, at: range,
                               label: label, help: help)
            }
        }
    }

    /// `x >= 1` on a consumable, and `not not x`.
    private static func reportSpelling(_ e: Expression, owner: String, file: String, context: LintContext) {
        forEachSubterm(e) { term in
            switch term {
            case .atLeast(let id, let n) where n.value == 1:
                context.report(code, sameAsMessage(id.name), file: file, at: term.range, label: sameAsLabel,
                               help: "write `\(id.name)`")
            case .not(.not(let inner, _), _):
                context.report(code, doubleNegationMessage, file: file, at: term.range, label: doubleNegationLabel,
                               help: "write `\(context.text(file, inner.range))`")
            default:
                break
            }
        }
    }

    /// A constraint flattened into nodes with parents, for trying each term's removal.
    private struct Tree {
        struct Node {
            var expression: Expression
            var parent: Int
            var children: [Int] = []
        }

        var nodes: [Node] = []

        init(_ e: Expression) {
            add(e, parent: -1)
        }

        @discardableResult
        private mutating func add(_ e: Expression, parent: Int) -> Int {
            let index = nodes.count
            nodes.append(Node(expression: e, parent: parent))
            switch e {
            case .not(let inner, _): nodes[index].children = [add(inner, parent: index)]
            case .and(let terms), .or(let terms): nodes[index].children = terms.map { add($0, parent: index) }
            case .reference, .everyone, .atLeast, .purchased, .error: break
            }
            return index
        }

        private func combine(_ i: Int, _ values: [Int32], _ a: ConstraintAnalysis) -> Int32 {
            let children = nodes[i].children.map { values[$0] }
            switch nodes[i].expression {
            case .not: return a.not(children[0])
            case .and: return children.reduce(BDD.true) { a.and($0, $1) }
            case .or: return children.reduce(BDD.false) { a.or($0, $1) }
            default: return a.value(nodes[i].expression)
            }
        }

        private func identity(ofParentOf i: Int) -> Int32? {
            let p = nodes[i].parent
            guard p >= 0 else { return nil }
            switch nodes[p].expression {
            case .and: return BDD.true
            case .or: return BDD.false
            default: return nil
            }
        }

        /// The terms whose removal leaves the constraint's meaning unchanged (removing each as found).
        func redundantTerms(_ a: ConstraintAnalysis) -> [Int] {
            var values = [Int32](repeating: BDD.false, count: nodes.count)
            for i in nodes.indices.reversed() { values[i] = combine(i, values, a) }  // children come after parents
            let original = values[0]
            let candidates = nodes.indices.filter { identity(ofParentOf: $0) != nil }.sorted {
                let (x, y) = (nodes[$0].expression.range, nodes[$1].expression.range)
                return x.end.offset != y.end.offset ? x.end.offset > y.end.offset : x.start.offset < y.start.offset
            }
            var removed: Set<Int> = []
            var found: [Int] = []
            for c in candidates {
                var ancestor = c
                var gone = false
                while ancestor >= 0 {
                    if removed.contains(ancestor) { gone = true }
                    ancestor = nodes[ancestor].parent
                }
                if gone { continue }
                var trial = values
                trial[c] = identity(ofParentOf: c)!
                var node = nodes[c].parent
                while node >= 0 {
                    trial[node] = combine(node, trial, a)
                    node = nodes[node].parent
                }
                if a.usable, a.equivalent(trial[0], original) {
                    found.append(c)
                    removed.insert(c)
                    values = trial
                }
            }
            return found.sorted { nodes[$0].expression.range.start.offset < nodes[$1].expression.range.start.offset }
        }
    }
}

extension RedundantTermCheck {
    fileprivate static func message(_ term: String, _ owner: String) -> String {
        "`\(term)` is redundant in \(owner)"
    }
    fileprivate static let label = "the constraint means the same without it"
    fileprivate static let help = "remove the term"
    fileprivate static func sameAsMessage(_ name: String) -> String { "`\(name) >= 1` is the same as `\(name)`" }
    fileprivate static let sameAsLabel = "owning a consumable means holding at least 1"
    fileprivate static let doubleNegationMessage = "double negation"
    fileprivate static let doubleNegationLabel = "`not not x` is `x`"
}
