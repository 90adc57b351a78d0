import EntlSyntax

/// Redundant term (W305).
///
/// Invariant: every term of a constraint matters. A term is redundant when the whole constraint
/// means the same without it (`a or (a and b)`, `a and a`, `pro and (pro or lifetime)`), decided
/// exactly on BDDs: the term is replaced by the identity of its `and`/`or` and the result compared
/// with the original over the possible purchase states. Terms are tried last to first, larger
/// before smaller, so of two equal terms the second is reported; each found is removed before the
/// next is tried, so several found in one constraint are redundant together (and say so). Also:
/// `x >= 1` on a consumable
/// (that is `x`) and `not not x`.
///
/// Each trial rebuilds only the path from the term to the root, each `and`/`or` on it from the
/// combined terms before and after the one replaced (kept per node), so a constraint of n terms
/// costs about n × depth operations (and each term found rebuilds the nodes above it, counted
/// against the budget as well). The search has the budget of one constraint; when it is spent,
/// the terms found so far are reported and a note (W315) says the rest were not checked.
enum RedundantTermCheck: LintCheck {
    static let code = DiagnosticCode("W305", "redundant term")

    static func run(_ context: LintContext) {
        context.forEachConstraint { site, owner, e, analysis in
            reportSpelling(e, owner: owner, file: site.file, context: context)
            // A constraint true for everyone is W304's, unless it says so with `everyone`:
            // `everyone or p` is `everyone`, and `p` is redundant.
            guard let facts = analysis.facts(of: site.declaration), !facts.isImpossible,
                  context.saysEveryone(e, analysis) || !facts.isAlwaysTrue else { return }
            let tree = Tree(e)
            let search = analysis.withinBudget { tree.redundantTerms(analysis) }
            // Found one after another, each with the ones before it removed: together they are
            // redundant, not always each alone (`(a and b) or (a and not b)` is `a` without `not b`
            // and `a and b`, but without `a and b` alone it is `a and not b`).
            let together = search.result.count > 1
            for term in search.result {
                let range = tree.nodes[term].expression.range
                context.report(code, message(context.text(site.file, range), owner), file: site.file, at: range,
                               label: together ? togetherLabel : label, help: together ? togetherHelp : help)
            }
            if !search.complete {
                SkippedAnalysisCheck.report(SkippedAnalysisCheck.redundancyAnalysis, of: owner, site: site,
                                            context: context, label: SkippedAnalysisCheck.redundancyLabel,
                                            help: SkippedAnalysisCheck.redundancyHelp)
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
            /// Its place among its parent's children.
            var position = 0
            var children: [Int] = []
        }

        var nodes: [Node] = []

        init(_ e: Expression) {
            add(e, parent: -1, position: 0)
        }

        @discardableResult
        private mutating func add(_ e: Expression, parent: Int, position: Int) -> Int {
            let index = nodes.count
            nodes.append(Node(expression: e, parent: parent, position: position))
            switch e {
            case .not(let inner, _): nodes[index].children = [add(inner, parent: index, position: 0)]
            case .and(let terms), .or(let terms):
                nodes[index].children = terms.enumerated().map { add($1, parent: index, position: $0) }
            case .reference, .everyone, .atLeast, .purchased, .error: break
            }
            return index
        }

        /// The identity of node `i`'s operator (`true` for `and`, `false` for `or`), if it has one.
        private func identity(of i: Int) -> Int32? {
            switch nodes[i].expression {
            case .and: BDD.true
            case .or: BDD.false
            default: nil
            }
        }

        /// Per node, its value and, for an `and`/`or`, its children combined before and after
        /// each one (`before[i][k]`: children 0..<k; `after[i][k]`: children k+1...).
        private struct Values {
            var value: [Int32]
            var before: [[Int32]]
            var after: [[Int32]]
        }

        private func combine(_ i: Int, _ v: inout Values, _ a: ConstraintAnalysis) {
            // Rebuilt after each term found: a long `or` of redundant terms would cost n² (1.5 s for
            // 4,000 terms) unbounded; counted, the budget stops it (W315).
            a.spend(nodes[i].children.count)
            let children = nodes[i].children.map { v.value[$0] }
            guard let unit = identity(of: i) else {
                v.value[i] = children.isEmpty ? a.value(nodes[i].expression) : a.not(children[0])
                return
            }
            let op: (Int32, Int32) -> Int32 = unit == BDD.true ? a.and : a.or
            var before = [unit], after = [unit]
            for c in children.dropLast() { before.append(op(before.last!, c)) }
            for c in children.dropFirst().reversed() { after.append(op(after.last!, c)) }
            v.before[i] = before
            v.after[i] = after.reversed()
            v.value[i] = op(before.last!, children.last!)
        }

        /// Node `i`'s value with its child at `position` worth `child`.
        private func replaced(_ i: Int, _ position: Int, _ child: Int32, _ v: Values, _ a: ConstraintAnalysis)
            -> Int32
        {
            guard let unit = identity(of: i) else { return a.not(child) }
            let op: (Int32, Int32) -> Int32 = unit == BDD.true ? a.and : a.or
            return op(op(v.before[i][position], child), v.after[i][position])
        }

        /// The terms whose removal leaves the constraint's meaning unchanged (removing each as
        /// found). Stops when the budget is spent (`a.spent`), with the terms found until then.
        func redundantTerms(_ a: ConstraintAnalysis) -> [Int] {
            let none = [[Int32]](repeating: [], count: nodes.count)
            var v = Values(value: Array(repeating: BDD.false, count: nodes.count), before: none, after: none)
            for i in nodes.indices.reversed() { combine(i, &v, a) }  // children come after parents
            // Compared over the domains of every product the constraint mentions: the same answer
            // as over each pair's own, since products' domains are independent and satisfiable.
            let domain = a.atoms.domain(nodes.indices.filter { nodes[$0].children.isEmpty }.map { v.value[$0] })
            let original = a.and(v.value[0], domain)
            let terms = nodes.indices.filter { nodes[$0].parent >= 0 && identity(of: nodes[$0].parent) != nil }
            let candidates = terms.sorted {
                let (x, y) = (nodes[$0].expression.range, nodes[$1].expression.range)
                return x.end.offset != y.end.offset ? x.end.offset > y.end.offset : x.start.offset < y.start.offset
            }
            var removed = Array(repeating: false, count: nodes.count)
            var found: [Int] = []
            for c in candidates where !a.spent {
                var ancestor = nodes[c].parent, gone = false
                while ancestor >= 0, !gone {
                    gone = removed[ancestor]
                    ancestor = nodes[ancestor].parent
                }
                if gone { continue }
                var value = identity(of: nodes[c].parent)!
                var child = c
                while nodes[child].parent >= 0 {
                    value = replaced(nodes[child].parent, nodes[child].position, value, v, a)
                    child = nodes[child].parent
                }
                guard !a.spent, a.and(value, domain) == original else { continue }
                found.append(c)
                removed[c] = true
                v.value[c] = identity(of: nodes[c].parent)!
                var node = nodes[c].parent
                while node >= 0 {
                    combine(node, &v, a)
                    node = nodes[node].parent
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
    fileprivate static let togetherLabel = "the constraint means the same without this and the other terms reported"
    fileprivate static let togetherHelp = "remove all the terms reported in it, together"
    fileprivate static func sameAsMessage(_ name: String) -> String { "`\(name) >= 1` is the same as `\(name)`" }
    fileprivate static let sameAsLabel = "owning a consumable means holding at least 1"
    fileprivate static let doubleNegationMessage = "double negation"
    fileprivate static let doubleNegationLabel = "`not not x` is `x`"
}
