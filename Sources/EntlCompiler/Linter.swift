import EntlSyntax

/// One lint: a warning code and the check that reports it (one per file under `Checks/`).
protocol LintCheck: SendableMetatype {
    static var code: DiagnosticCode { get }
    static func run(_ context: LintContext)
}

/// What every lint check sees: the checked declarations and their model, the comments, a sink
/// for warnings, and the constraint analysis of each checked environment (built on first use).
final class LintContext {
    let declarations: [DeclarationSite]
    let model: RuleModel
    let tables: [EnvironmentName: SymbolTable]
    let environments: [EnvironmentName]
    let files: [RuleFile]
    let comments: [[Comment]]
    private let sources: [String: SourceFile]
    private let sink: CheckContext
    private var analyses: [EnvironmentName: ConstraintAnalysis] = [:]

    init(checked: CheckedRuleSet, environments: [EnvironmentName], sink: CheckContext) {
        self.declarations = checked.declarations
        self.model = checked.model
        self.tables = checked.tables
        self.environments = environments
        self.files = checked.files
        self.comments = checked.comments
        self.sources = Dictionary(checked.sources.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        self.sink = sink
    }

    /// The source text of a range, shortened to `limit` characters for messages.
    func text(_ file: String, _ range: SourceRange, limit: Int = 48) -> String {
        guard let bytes = sources[file]?.bytes, range.start.offset <= range.end.offset,
              range.end.offset <= bytes.count else {
            return ""
        }
        let text = String(decoding: bytes[range.start.offset..<range.end.offset], as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    func analysis(_ env: EnvironmentName) -> ConstraintAnalysis {
        if let a = analyses[env] { return a }
        let a = ConstraintAnalysis(declarations: declarations, table: tables[env]!, budget: .perConstraint,
                                   grantable: true)
        analyses[env] = a
        return a
    }

    /// Every constraint (an entitlement's, or a feature's requirement) in each checked
    /// environment, with its owner's description and that environment's analysis.
    func forEachConstraint(_ body: (DeclarationSite, _ owner: String, Expression, ConstraintAnalysis) -> Void) {
        for env in environments {
            let analysis = analysis(env)
            for site in declarations where site.isVisible(in: env) {
                if let (owner, e) = constraint(of: site.declaration) { body(site, owner, e, analysis) }
            }
        }
    }

    /// Whether a constraint says `everyone`, itself or through the entitlements it names (in the
    /// environment of `analysis`): such a constraint is true for every customer on purpose.
    func saysEveryone(_ e: Expression, _ analysis: ConstraintAnalysis) -> Bool {
        if e.mentionsEveryone { return true }
        let table = analysis.table
        if everyoneEntitlements[table.environment] == nil {
            everyoneEntitlements[table.environment] = entitlementsSayingEveryone(table)
        }
        let saying = everyoneEntitlements[table.environment]!
        return e.references.contains { saying.contains($0.name) }
    }

    private var everyoneEntitlements: [EnvironmentName: Set<String>] = [:]

    /// The entitlements whose constraints say `everyone`, directly or through the entitlements they
    /// name: from those that say it directly, along "is named by" edges (linear in the rule set).
    private func entitlementsSayingEveryone(_ table: SymbolTable) -> Set<String> {
        var namedBy: [String: [String]] = [:]
        var saying: Set<String> = []
        var pending: [String] = []
        for name in table.order {
            guard let symbol = table[name], symbol.kind == .entitlement,
                  case .entitlement(let d) = declarations[symbol.site].declaration else { continue }
            if d.expression.mentionsEveryone, saying.insert(name).inserted { pending.append(name) }
            for r in d.expression.references where table[r.name]?.kind == .entitlement {
                namedBy[r.name, default: []].append(name)
            }
        }
        while let next = pending.popLast() {
            for dependent in namedBy[next] ?? [] where saying.insert(dependent).inserted { pending.append(dependent) }
        }
        return saying
    }

    /// The checked environments a declaration of the model is visible in.
    func environments(of site: RuleModel.Site) -> [EnvironmentName] {
        environments.filter { env in site.environment.map { $0 == env } ?? true }
    }

    /// The declarations visible in at least one checked environment (computed once).
    private(set) lazy var checkedDeclarations: [RuleModel.Declaration] = model.declarations.filter { d in
        d.site.environment.map(environments.contains) ?? !environments.isEmpty
    }

    func report(_ code: DiagnosticCode, _ message: String, file: String, at range: SourceRange, label: String? = nil,
                help: String? = nil, notes: [DiagnosticNote] = []) {
        sink.report(Diagnostic(code, message, file: file, range: range, label: label, help: help, notes: notes))
    }
}

/// Runs every lint check. Lints run only on a rule set without errors: they need every name
/// resolved and no cycles.
enum Linter {
    static let checks: [any LintCheck.Type] = [
        UnusedProductCheck.self, NeverGrantedCheck.self, ImpossibleConstraintCheck.self, AlwaysTrueConstraintCheck.self,
        RedundantTermCheck.self, DuplicateGrantCheck.self, CarryWithoutResetCheck.self,
        CarryCapBelowAllowanceCheck.self,
        UnlimitedWindowCheck.self, EquivalentEntitlementCheck.self, DuplicateTestNameCheck.self,
        TestWithoutExpectationCheck.self, TestWithoutInstantCheck.self, UnknownStoreCheck.self,
        SkippedAnalysisCheck.self,
    ]

    static func run(_ checked: CheckedRuleSet, environments: [EnvironmentName], sink: CheckContext) {
        let context = LintContext(checked: checked, environments: environments, sink: sink)
        for check in checks { check.run(context) }
    }

    /// Every warning code the linter can emit (with the allow-comment check's own).
    static var codes: [DiagnosticCode] { checks.map { $0.code } + [Suppressions.code] }
}

/// Walks a constraint and every subterm, outermost first.
func forEachSubterm(_ e: Expression, _ body: (Expression) -> Void) {
    body(e)
    switch e {
    case .not(let inner, _): forEachSubterm(inner, body)
    case .and(let terms), .or(let terms): for t in terms { forEachSubterm(t, body) }
    case .reference, .everyone, .atLeast, .purchased, .error: break
    }
}

/// The constraints of a declaration: an entitlement's, or a feature's requirement.
func constraint(of declaration: Declaration) -> (owner: String, expression: Expression)? {
    switch declaration {
    case .entitlement(let e): ("entitlement `\(e.name.name)`", e.expression)
    case .feature(let f): f.requires.map { ("the requirement of feature `\(f.name.name)`", $0) }
    default: nil
    }
}

/// The declared name of a declaration with a constraint (where a note about it points).
func constraintOwnerName(_ declaration: Declaration) -> Identifier? {
    switch declaration {
    case .entitlement(let e): e.name
    case .feature(let f): f.name
    default: nil
    }
}

/// The grants of a product or an entitlement, with the declaration's description.
func grants(of declaration: RuleModel.Declaration) -> (owner: String, grants: [Grant])? {
    switch declaration {
    case .product(let p): ("product `\(p.name.name)`", p.grants)
    case .entitlement(let e): ("entitlement `\(e.name.name)`", e.grants)
    default: nil
    }
}
