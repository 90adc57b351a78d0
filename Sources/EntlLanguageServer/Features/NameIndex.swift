import EntlCompiler
import EntlSyntax

/// Where a name is written: its declaration, or a use in a constraint, a grant, a credit
/// conversion or a test.
struct Occurrence {
    let name: String
    let file: String
    let range: SourceRange
    let isDeclaration: Bool
    /// The environments the name resolves in: its environment block's, a test's `env`, or both.
    let environments: [EnvironmentName]
}

/// Every name written in a checked rule set, per file in source order, and what each resolves
/// to: the one index behind hover, go to definition, references, rename and semantic tokens.
struct NameIndex {
    private(set) var occurrences: [String: [Occurrence]] = [:]
    private let checked: CheckedRuleSet

    init(_ checked: CheckedRuleSet) {
        self.checked = checked
        for file in checked.files {
            var list: [Occurrence] = []
            for d in file.declarations { collect(d, environments: EnvironmentName.allCases, file: file.path, into: &list) }
            occurrences[file.path] = list.sorted { $0.range.start.offset < $1.range.start.offset }
        }
    }

    private func collect(_ declaration: Declaration, environments envs: [EnvironmentName], file: String,
                         into list: inout [Occurrence]) {
        func add(_ id: Identifier, declaration: Bool = false, in environments: [EnvironmentName] = envs) {
            list.append(Occurrence(name: id.name, file: file, range: id.range, isDeclaration: declaration,
                                   environments: environments))
        }
        func items(_ items: [Item]) {
            for item in items {
                switch item.kind {
                case .grant(let g): add(g.feature)
                case .conversion(let feature, _, _): add(feature)
                default: break
                }
            }
        }
        switch declaration {
        case .app: break
        case .product(let d):
            add(d.name, declaration: true)
            items(d.items)
        case .feature(let d):
            add(d.name, declaration: true)
            for r in d.requires?.references ?? [] { add(r) }
            items(d.items)
        case .credits(let d):
            add(d.name, declaration: true)
            items(d.items)
        case .entitlement(let d):
            add(d.name, declaration: true)
            for r in d.expression.references { add(r) }
            items(d.items)
        case .environment(let e):
            for inner in e.declarations { collect(inner, environments: [e.environment.value], file: file, into: &list) }
        case .test(let t):
            var env: [EnvironmentName] = [.live]
            for item in t.items { if case .env(let e) = item.kind { env = [e.value] } }
            for item in t.items {
                switch item.kind {
                case .given(let g): add(g.product, in: env)
                case .used(let feature, _, _, _), .level(let feature, _, _): add(feature, in: env)
                case .override(let product, _): add(product, in: env)
                case .expect(let e):
                    add(e.name, in: env)
                    if case .credits(_, let system?)? = e.via { add(system, in: env) }
                case .at, .env, .state, .customerSince: break
                }
            }
        }
    }

    /// The occurrence whose range contains the byte offset (or ends at it: the cursor just after
    /// a name still points at it).
    func occurrence(in file: String, at offset: Int) -> Occurrence? {
        occurrences[file]?.first { $0.range.start.offset <= offset && offset <= $0.range.end.offset }
    }

    /// The declarations an occurrence resolves to (one per environment it is visible in, fewer
    /// when both resolve to the same declaration).
    func symbols(of occurrence: Occurrence) -> [Symbol] {
        var out: [Symbol] = []
        for env in occurrence.environments {
            guard let s = checked.tables[env]?[occurrence.name] else { continue }
            if !out.contains(where: { $0.site == s.site }) { out.append(s) }
        }
        return out
    }

    /// Every occurrence that resolves to one of `symbols`, in file order.
    func references(to symbols: [Symbol]) -> [Occurrence] {
        let sites = Set(symbols.map(\.site))
        guard let name = symbols.first?.name else { return [] }
        var out: [Occurrence] = []
        for file in checked.files {
            for o in occurrences[file.path] ?? [] where o.name == name {
                if self.symbols(of: o).contains(where: { sites.contains($0.site) }) { out.append(o) }
            }
        }
        return out
    }
}
