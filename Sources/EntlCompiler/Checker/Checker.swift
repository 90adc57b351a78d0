import EntlSupport
import EntlSyntax

/// Collects diagnostics for the checker and its checks; the same diagnostic reported twice (a
/// declaration shared by both environments is checked in each) is kept once.
public final class CheckContext {
    public private(set) var diagnostics: [Diagnostic] = []
    private var seen: Set<Diagnostic> = []

    public init() {}

    public func report(_ diagnostic: Diagnostic) {
        if seen.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    /// Whether a syntax error (E1xx) lies inside `range` of `file`: checks that would only repeat
    /// its consequence ("subscription has no period" after `period monthly`) stay quiet.
    public func hasSyntaxError(in file: String, _ range: SourceRange) -> Bool {
        diagnostics.contains {
            $0.code.id.hasPrefix("E1") && $0.file == file && $0.range.start >= range.start && $0.range.start < range.end
        }
    }
}

/// Checks a parsed rule set: names (one namespace per environment), kinds, numbers, cycles and
/// test blocks. Every check runs in time linear in the rule set (suggestions are computed for at
/// most `maxSuggestions` unknown names, so a file of typos stays linear too).
struct Checker {
    static let maxSuggestions = 200

    let declarations: [DeclarationSite]
    /// The declarations typed, one per site (`ModelBuilder`): what the symbol tables are built from.
    let modelDeclarations: [RuleModel.Declaration]
    var tables: [EnvironmentName: SymbolTable] = [:]
    let context: CheckContext
    var suggestionsLeft = Checker.maxSuggestions

    init(files: [RuleFile], context: CheckContext) {
        var sites: [DeclarationSite] = []
        for file in files {
            for d in file.declarations {
                if case .environment(let env) = d {
                    for inner in env.declarations {
                        sites.append(DeclarationSite(file: file.path, declaration: inner,
                                                     environment: env.environment.value))
                    }
                } else {
                    sites.append(DeclarationSite(file: file.path, declaration: d, environment: nil))
                }
            }
        }
        self.declarations = sites
        self.modelDeclarations = ModelBuilder.declarations(sites)
        self.context = context
    }

    /// The model of the rule set: the typed declarations and each environment's names (call
    /// after the symbol tables are built).
    var model: RuleModel { ModelBuilder.model(modelDeclarations, tables: tables) }

    func report(_ code: DiagnosticCode, _ message: String, file: String, at range: SourceRange,
                label: String? = nil, help: String? = nil, notes: [DiagnosticNote] = []) {
        context.report(Diagnostic(code, message, file: file, range: range, label: label, help: help, notes: notes))
    }

    /// Builds both symbol tables, reporting duplicate names, and checks nothing else.
    mutating func declareNames() {
        for env in EnvironmentName.allCases { buildTable(env, reportDuplicates: true) }
    }

    /// Runs every check for the given environments.
    mutating func run(environments: [EnvironmentName]) {
        checkSingleApp()
        for env in EnvironmentName.allCases {
            buildTable(env, reportDuplicates: environments.contains(env))
        }
        // The same declarations in every environment: the checks find the same problems in each.
        for env in declarations.sameInEveryEnvironment ? Array(environments.prefix(1)) : environments {
            let table = tables[env]!
            checkStoreIDs(table)
            checkEvents(table)
            for site in declarations where site.isVisible(in: env) {
                checkDeclaration(site, table)
            }
            checkCycles(table)
        }
        for case .test(let test) in modelDeclarations where environments.contains(test.environment) {
            checkTest(test.syntax, file: test.site.file, table: tables[test.environment]!)
        }
    }

    // MARK: - Declarations and names

    private func checkSingleApp() {
        var first: (file: String, range: SourceRange)?
        for site in declarations {
            guard case .app(let app) = site.declaration else { continue }
            if let first {
                report(.duplicateApp, "more than one `app` declaration", file: site.file, at: app.range,
                       label: "second `app`", help: "a rule set describes one app; remove this declaration",
                       notes: [DiagnosticNote(message: "the first `app` is here", file: first.file,
                                              range: first.range)])
            } else {
                first = (site.file, app.range)
            }
        }
    }

    private mutating func buildTable(_ env: EnvironmentName, reportDuplicates: Bool) {
        var table = SymbolTable(environment: env)
        for (index, site) in declarations.enumerated() where site.isVisible(in: env) {
            guard let named = modelDeclarations[index].named else { continue }
            let name = named.name
            let symbol = Symbol(name: name.name, kind: named.symbolKind, site: index, file: site.file,
                                range: name.range)
            if let first = table.insert(symbol), reportDuplicates {
                report(.duplicateDeclaration, "duplicate name `\(name.name)`", file: site.file, at: name.range,
                       label: "declared again here",
                       help: "names share one namespace per environment; rename one of them",
                       notes: [DiagnosticNote(message: "`\(name.name)` is first declared here (\(first.kind.noun))",
                                              file: first.file, range: first.range)])
            }
        }
        tables[env] = table
    }

    /// The pair (STORE, id) is unique per environment.
    private func checkStoreIDs(_ table: SymbolTable) {
        var seen: [String: (product: String, file: String, range: SourceRange)] = [:]
        for site in declarations where site.isVisible(in: table.environment) {
            guard case .product(let product) = site.declaration else { continue }
            for item in product.items {
                guard case .storeID(let store, let id) = item.kind else { continue }
                let key = store.name + "\u{0}" + id.value
                if let first = seen[key] {
                    report(.duplicateStoreID, "duplicate store id \(store.name) \"\(id.value)\"", file: site.file,
                           at: id.range, label: "already the id of product `\(first.product)`",
                           help: "each (store, id) pair names one product per environment",
                           notes: [DiagnosticNote(message: "first used by product `\(first.product)`",
                                                  file: first.file, range: first.range)])
                } else {
                    seen[key] = (product.name.name, site.file, id.range)
                }
            }
        }
    }

    /// A usage event names one feature per environment: two features declaring the same
    /// `event "…"` would leave usage reported under it to whichever comes first.
    private func checkEvents(_ table: SymbolTable) {
        var seen: [String: (feature: String, file: String, range: SourceRange)] = [:]
        for site in declarations where site.isVisible(in: table.environment) {
            guard case .feature(let feature) = site.declaration else { continue }
            for item in feature.items {
                guard case .event(let event) = item.kind else { continue }
                if let first = seen[event.value] {
                    report(.duplicateEvent,
                           "event \"\(event.value)\" is already the event of feature `\(first.feature)`",
                           file: site.file, at: event.range, label: "usage reported as this event would be ambiguous",
                           help: "give each feature its own event name",
                           notes: [DiagnosticNote(message: "feature `\(first.feature)` declares it here",
                                                  file: first.file, range: first.range)])
                } else {
                    seen[event.value] = (feature.name.name, site.file, event.range)
                }
            }
        }
    }

    /// Reports an unknown name, with a "did you mean" among the names `filter` accepts and a note
    /// when the name exists only in the other environment. The message names `noun` when given,
    /// else the kind of the suggestion, else its kind in the other environment, else `fallback`.
    mutating func reportUnknown(_ id: Identifier, noun: String? = nil, fallback: String = "name", file: String,
                                table: SymbolTable, filter: (Symbol.Kind) -> Bool) {
        var suggestion: String?
        if suggestionsLeft > 0 {
            suggestionsLeft -= 1
            suggestion = Suggestions.closest(to: id.name, among: table.names(where: filter))
        }
        let other: EnvironmentName = table.environment == .live ? .test : .live
        let elsewhere = tables[other]?[id.name]
        var notes: [DiagnosticNote] = []
        var label = "not declared in this rule set"
        if let elsewhere, declarations[elsewhere.site].environment == other {
            label = "not declared in environment \(table.environment.rawValue)"
            notes.append(DiagnosticNote(message: "`\(id.name)` is declared only in environment \(other.rawValue)",
                                        file: elsewhere.file, range: elsewhere.range))
        }
        let what = noun ?? suggestion.flatMap { table[$0]?.kind.noun } ?? elsewhere?.kind.noun ?? fallback
        report(.unknownName, "unknown \(what) `\(id.name)`", file: file, at: id.range, label: label,
               help: suggestion.map { "did you mean `\($0)`?" }, notes: notes)
    }

    // MARK: - Cycles

    /// Entitlements may refer to other entitlements; a cycle is an error, reported once per cycle
    /// at the reference that closes it. Iterative depth-first search: no recursion on input size.
    private func checkCycles(_ table: SymbolTable) {
        var edges: [String: [Identifier]] = [:]
        var owners: [String: (file: String, decl: EntitlementDeclaration)] = [:]
        for name in table.order {
            guard let symbol = table[name], symbol.kind == .entitlement,
                  case .entitlement(let e) = declarations[symbol.site].declaration else { continue }
            owners[name] = (symbol.file, e)
            edges[name] = e.expression.references.filter { table[$0.name]?.kind == .entitlement }
        }
        enum Color { case gray, black }
        var color: [String: Color] = [:]
        for root in table.order where owners[root] != nil && color[root] == nil {
            // Stack of (entitlement, index of the next edge to follow).
            var stack: [(String, Int)] = [(root, 0)]
            color[root] = .gray
            while let (node, next) = stack.last {
                let out = edges[node] ?? []
                guard next < out.count else {
                    color[node] = .black
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].1 += 1
                let target = out[next]
                switch color[target.name] {
                case nil:
                    color[target.name] = .gray
                    stack.append((target.name, 0))
                case .gray:
                    let start = stack.firstIndex { $0.0 == target.name }!
                    let path = stack[start...].map { "`\($0.0)`" } + ["`\(target.name)`"]
                    let owner = owners[node]!
                    report(.entitlementCycle,
                           "entitlement `\(target.name)` depends on itself: \(path.joined(separator: " → "))",
                           file: owner.file, at: target.range, label: "this reference closes the cycle",
                           help: "an entitlement cannot require itself, directly or through others")
                case .black:
                    break
                }
            }
        }
    }
}
