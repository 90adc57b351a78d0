import EntlSyntax

/// Where a name is written: its declaration, or a use in a constraint, a grant, a credit
/// conversion or a test.
public struct Occurrence: Sendable {
    public let name: String
    public let file: String
    public let range: SourceRange
    public let isDeclaration: Bool
    /// The environments the name resolves in: its environment block's, a test's `env`, or both.
    public let environments: [EnvironmentName]
}

/// Every name written in a checked rule set, per file in source order, and what each resolves
/// to: read off the model once, for an editor's hover, go to definition, references, rename and
/// semantic tokens.
public struct NameIndex: Sendable {
    /// Per file, the occurrences in source order.
    public private(set) var occurrences: [String: [Occurrence]] = [:]
    private let files: [String]
    private let tables: [EnvironmentName: SymbolTable]

    public init(_ checked: CheckedRuleSet) {
        files = checked.files.map(\.path)
        tables = checked.tables
        var byFile: [String: [Occurrence]] = [:]
        for declaration in checked.model.declarations {
            let site = declaration.site
            let environments = site.environment.map { [$0] } ?? EnvironmentName.allCases
            func add(_ id: Identifier, declaration: Bool = false, in envs: [EnvironmentName] = environments) {
                byFile[site.file, default: []].append(Occurrence(name: id.name, file: site.file, range: id.range,
                                                                 isDeclaration: declaration, environments: envs))
            }
            switch declaration {
            case .app: break
            case .product(let p):
                add(p.name, declaration: true)
                for g in p.grants { add(g.feature) }
            case .entitlement(let e):
                add(e.name, declaration: true)
                for r in e.constraint.references { add(r) }
                for g in e.grants { add(g.feature) }
            case .feature(let f):
                add(f.name, declaration: true)
                for r in f.requires?.references ?? [] { add(r) }
                for c in f.conversions { add(c.feature) }
            case .test(let t):
                for name in t.names { add(name, in: [t.environment]) }
            }
        }
        for file in files {
            occurrences[file] = (byFile[file] ?? []).sorted { $0.range.start.offset < $1.range.start.offset }
        }
    }

    /// The occurrence whose range contains the byte offset (or ends at it: the cursor just after
    /// a name still points at it).
    public func occurrence(in file: String, at offset: Int) -> Occurrence? {
        occurrences[file]?.first { $0.range.start.offset <= offset && offset <= $0.range.end.offset }
    }

    /// The declarations an occurrence resolves to (one per environment it is visible in, fewer
    /// when both resolve to the same declaration).
    public func symbols(of occurrence: Occurrence) -> [Symbol] {
        var out: [Symbol] = []
        for env in occurrence.environments {
            guard let s = tables[env]?[occurrence.name] else { continue }
            if !out.contains(where: { $0.site == s.site }) { out.append(s) }
        }
        return out
    }

    /// Every occurrence that resolves to one of `symbols`, in file order.
    public func references(to symbols: [Symbol]) -> [Occurrence] {
        let sites = Set(symbols.map(\.site))
        guard let name = symbols.first?.name else { return [] }
        var out: [Occurrence] = []
        for file in files {
            for o in occurrences[file] ?? [] where o.name == name {
                if self.symbols(of: o).contains(where: { sites.contains($0.site) }) { out.append(o) }
            }
        }
        return out
    }
}
