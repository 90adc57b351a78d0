import EntlSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EntlCompiler
import EntlRuntime
import EntlSyntax

/// `entlc eval RULES --state FILE|- QUERY [options]` and `--states FILE.jsonl` batches.
enum EvalCommand {
    static let spec = CommandSpec(
        name: "eval",
        summary: "evaluate rules against a customer's purchase state",
        help: """
        USAGE: entlc eval RULES... --state FILE|- QUERY [OPTIONS]
               entlc eval RULES... --states FILE.jsonl QUERY [OPTIONS]
               entlc eval RULES... --state FILE --feature F --amount N --consume [--id ID]

        Compiles the rules and answers a query against one customer's purchase-tracker state
        (JSON, see docs/state.md), or against every line of a JSONL file: one JSON line out per
        line in, in input order; `{"line": N, "error": "…"}` for a line that cannot be evaluated;
        blank lines skipped.

        QUERY (exactly one):
          --feature NAME [--amount N]  may the customer use a feature (N units of a metered one)?
          --product NAME               does the customer own a product?
          --entitlement NAME           is an entitlement active, through what, until when?
          --all                        every product, entitlement, feature and credit system

        OPTIONS:
          --at INSTANT          evaluation instant (RFC 3339); else the state's "now"; else the clock
          --env live|test       evaluation environment; else the state's; else live
          --override P=V        override product P to purchased|not_purchased|unknown (repeatable)
          --format text|json    text (default) or JSON (docs/cli.md); batches always write JSON lines
          --explain             add the reasoning: purchases counted or ignored, grants, burn-down,
                                credit conversion
          --unlock              with --states: say what would allow each result that is not
                                allowed (`unlocked_by`; one state always does)
          --graph FILE          evaluate a graph built by `entlc build` instead of RULES
        \(RuleLoader.trustHelp(column: 24))
          --jobs N              threads for --states (default: one per core); output order and
                                bytes do not depend on it
          --strict              a state's warnings are errors (exit 2): unknown keys, usage
                                naming nothing or of the wrong kind, a reused id, an unknown
                                store, a subscription that never ends, dates out of order
          --fail-on-error       with --states: exit 1 when a line yielded an error record
          --consume             with --feature F --amount N and --state FILE: check, and when
                                allowed, record the use in FILE (atomically); exit 0 allowed and
                                recorded, 1 denied (FILE untouched)
          --id ID               with --consume: an idempotency key; a retry records nothing and
                                answers as the first call did; the same id for another use is
                                an error (exit 2)

        A batch ends with a summary on standard error: `N lines, N errors, N warnings`.

        EXIT: 0 allowed (and for --all, and batches unless --fail-on-error), 1 denied or
              undetermined (a batch with --fail-on-error: some line failed), 2 bad arguments,
              unreadable files, invalid state, rules that do not compile, or a graph that is not
              usable (or not signed by a trusted key).

        """,
        options: [
            OptionSpec(name: "--state", takesValue: true), OptionSpec(name: "--states", takesValue: true),
            OptionSpec(name: "--feature", takesValue: true), OptionSpec(name: "--amount", takesValue: true),
            OptionSpec(name: "--product", takesValue: true), OptionSpec(name: "--entitlement", takesValue: true),
            OptionSpec(name: "--all"), OptionSpec(name: "--at", takesValue: true),
            OptionSpec(name: "--env", takesValue: true),
            OptionSpec(name: "--override", takesValue: true, repeatable: true),
            OptionSpec(name: "--format", takesValue: true), OptionSpec(name: "--explain"),
            OptionSpec(name: "--jobs", takesValue: true), OptionSpec(name: "--strict"),
            OptionSpec(name: "--fail-on-error"), OptionSpec(name: "--consume"),
            OptionSpec(name: "--id", takesValue: true), RuleLoader.graphOption, OptionSpec(name: "--unlock"),
        ] + RuleLoader.trustOptions,
        run: run)

    enum Query: Sendable {
        case feature(String, required: Int64)
        case product(String)
        case entitlement(String)
        case all
    }

    /// What every mode of `eval` needs: the compiled rules and the parsed options.
    struct Options {
        var graph: RuleGraph
        var query: Query
        var format: String
        var environment: Environment?
        var at: Instant?
        var overrides: [(String, Override)]
        var explain: Bool
        /// Compute `unlocked_by` (always for one state; `--unlock` for batches).
        var unlock: Bool
        var decoding: StateDecodingOptions

        /// The queried feature's or entitlement's index in each environment (nil where it has
        /// none: asked by name, which says so): a batch line asks by index, no name hashed.
        var queryIndex: (live: Int?, test: Int?) {
            func index(_ g: EnvironmentGraph) -> Int? {
                switch query {
                case .feature(let f, _): g.featureIndex[f]
                case .entitlement(let e): g.entitlementIndex[e]
                case .product, .all: nil
                }
            }
            return (index(graph.live), index(graph.test))
        }
    }

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["text", "json"]) ?? "text"
        let environment = try args.environment()
        let query = try parseQuery(args)
        let at = try args.instant("--at")
        let overrides = try parseOverrides(args.all("--override"))
        let graph = try RuleLoader.graph(args)
        try validate(query, in: graph, environment: environment)
        try validate(overrides, in: graph, environment: environment)
        if case .feature(let f, _) = query, args.value("--amount") != nil, kind(of: f, in: graph) == .boolean {
            Terminal.emitError("entlc: note: --amount is ignored for boolean feature `\(f)`: it is allowed or not\n")
        }
        let options = Options(graph: graph, query: query, format: format, environment: environment, at: at,
                              overrides: overrides, explain: args.has("--explain"),
                              unlock: args.has("--unlock") || args.value("--states") == nil,
                              decoding: StateDecodingOptions(strict: args.has("--strict"),
                                                             // Worth its table only for many states.
                                                             names: args.has("--states") ? StateNames(graph) : nil))

        switch (args.value("--state"), args.value("--states")) {
        case (nil, nil):
            throw CLIError("give the customer state with --state FILE (or - for standard input), "
                           + "or --states FILE.jsonl")
        case (_?, _?): throw CLIError("give either --state or --states, not both")
        case (nil, let batch?):
            if args.value("--format") == "text" {
                throw CLIError("--states writes JSON lines; --format text is not available")
            }
            if args.has("--consume") {
                throw CLIError("--consume records a use in one state file; it does not go with --states")
            }
            return try runBatch(batch, options, jobs: try parseJobs(args), failOnError: args.has("--fail-on-error"))
        case (let path?, nil):
            if args.value("--jobs") != nil { throw CLIError("--jobs goes with --states") }
            if args.has("--fail-on-error") { throw CLIError("--fail-on-error goes with --states") }
            if args.has("--consume") { return try EvalConsume.run(path, options, id: args.value("--id")) }
            if args.value("--id") != nil { throw CLIError("--id goes with --consume") }
            let state = try StateFile.decode(try FileSystem.contents(ofInput: path), path: path, options.decoding,
                                             reportWarnings: format == "text")
            let (evaluation, results) = try evaluate(state, path: path, options)
            if format == "text" { reportRuleSetWarnings(evaluation, path: path) }
            emit(results, evaluation, options)
            if case .all = query { return .success }
            return results.first?.decision == .allowed ? .success : .no
        }
    }

    /// The kind of a feature (in the first environment that has it).
    static func kind(of feature: String, in graph: RuleGraph) -> EntlRuntime.FeatureKind? {
        [graph.live, graph.test].compactMap { g in g.featureIndex[feature].map { g.features[$0].kind } }.first
    }

    /// Evaluates the query against one state (with the `--override`s); errors name the file.
    static func evaluate(_ state: PurchaseState, path: String, _ options: Options) throws(CLIError)
        -> (Evaluation, [EvaluationResult])
    {
        var state = state
        try apply(options.overrides, to: &state, graph: options.graph, environment: options.environment)
        do throws(EvaluationError) {
            let at = options.at ?? state.now ?? .now()
            let evaluation = try Evaluation(graph: options.graph, state: consume state,
                                            environment: options.environment, at: at, explain: options.explain,
                                            unlock: options.unlock, strict: options.decoding.strict)
            return (evaluation, try answer(options.query, evaluation))
        } catch {
            throw CLIError("\(StateFile.name(path)): \(error.message)")
        }
    }

    /// In text mode, what the rule set cannot make sense of in the state goes to standard error,
    /// after the decoding warnings (JSON output carries both in `warnings`).
    static func reportRuleSetWarnings(_ evaluation: Evaluation, path: String) {
        for w in evaluation.ruleSetWarnings { Terminal.emitError("entlc: warning: \(StateFile.name(path)): \(w)\n") }
    }

    /// Prints results as text or JSON.
    static func emit(_ results: [EvaluationResult], _ evaluation: Evaluation, _ options: Options) {
        if options.format == "json" {
            Terminal.emit(evaluation.json(results).pretty + "\n")
        } else {
            Terminal.emit(EvalText.render(results, evaluation: evaluation, explain: options.explain))
        }
    }

    static func parseQuery(_ args: ParsedArguments) throws(CLIError) -> Query {
        var queries: [Query] = []
        if let f = args.value("--feature") {
            var required: Int64 = 1
            if let text = args.value("--amount") {
                guard let n = Int64(text), n >= 1, n <= 1_000_000_000_000_000 else {
                    throw CLIError("--amount: \"\(text)\" is not an integer from 1 to 10^15")
                }
                required = n
            }
            queries.append(.feature(f, required: required))
        } else if args.value("--amount") != nil {
            throw CLIError("--amount goes with --feature")
        }
        if let p = args.value("--product") { queries.append(.product(p)) }
        if let e = args.value("--entitlement") { queries.append(.entitlement(e)) }
        if args.has("--all") { queries.append(.all) }
        guard queries.count == 1 else {
            throw CLIError(queries.isEmpty
                ? "give a query: --feature NAME, --product NAME, --entitlement NAME or --all"
                : "give one query, not \(queries.count) (--feature, --product, --entitlement, --all)")
        }
        return queries[0]
    }

    static func parseJobs(_ args: ParsedArguments) throws(CLIError) -> Int {
        guard let text = args.value("--jobs") else { return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
        guard let n = Int(text), n >= 1, n <= 256 else {
            throw CLIError("--jobs: \"\(text)\" is not an integer from 1 to 256")
        }
        return n
    }

    static func parseOverrides(_ values: [String]) throws(CLIError) -> [(String, Override)] {
        var out: [(String, Override)] = []
        for v in values {
            guard let eq = v.firstIndex(of: "="), let o = Override(rawValue: String(v[v.index(after: eq)...])) else {
                throw CLIError("--override: \"\(v)\" is not PRODUCT=purchased|not_purchased|unknown")
            }
            let product = String(v[..<eq])
            // Two for one product: the last had won unseen (a review).
            if let first = out.first(where: { $0.0 == product }) {
                throw CLIError("--override: product `\(product)` is given twice "
                               + "(\(first.1.rawValue), then \(o.rawValue))")
            }
            out.append((product, o))
        }
        return out
    }

    /// Unknown names in the query fail the job (exit 2) with a suggestion, or with the option
    /// that fits when the name is of another kind (`--entitlement api_calls` → `--feature`). The
    /// environment of a state is not known yet, so a name must exist in the given environment, or
    /// in some environment when none is given.
    static func validate(_ query: Query, in graph: RuleGraph, environment: Environment?) throws(CLIError) {
        let graphs = environment.map { [graph[$0]] } ?? [graph.live, graph.test]
        let kinds: [(noun: String, option: String, names: (EnvironmentGraph) -> [String])] = [
            ("feature", "--feature", { $0.features.map(\.name) }),
            ("product", "--product", { $0.products.map(\.name) }),
            ("entitlement", "--entitlement", { $0.entitlements.map(\.name) }),
        ]
        func check(_ name: String, _ noun: String) throws(CLIError) {
            let all = graphs.flatMap(kinds.first { $0.noun == noun }!.names)
            guard !all.contains(name) else { return }
            for other in kinds where other.noun != noun && graphs.flatMap(other.names).contains(name) {
                throw CLIError("`\(name)` is \(other.noun == "entitlement" ? "an" : "a") \(other.noun), "
                               + "not \(noun == "entitlement" ? "an" : "a") \(noun); ask with \(other.option) \(name)")
            }
            throw CLIError("unknown \(noun) `\(name)`\(Suggestions.didYouMean(name, among: all))")
        }
        switch query {
        case .feature(let f, _): try check(f, "feature")
        case .product(let p): try check(p, "product")
        case .entitlement(let e): try check(e, "entitlement")
        case .all: break
        }
    }

    /// `--override P=V` must name a product (of the given environment, or of some environment).
    static func validate(_ overrides: [(String, Override)], in graph: RuleGraph,
                         environment: Environment?) throws(CLIError) {
        let graphs = environment.map { [graph[$0]] } ?? [graph.live, graph.test]
        for (product, value) in overrides where !graphs.contains(where: { $0.productIndex[product] != nil }) {
            let all = graphs.flatMap { $0.products.map(\.name) }
            throw CLIError("--override \(product)=\(value.rawValue): unknown product `\(product)`"
                           + Suggestions.didYouMean(product, among: all))
        }
    }

    /// Adds the `--override`s to a state. An override names a product of the environment the
    /// state is evaluated in; the error says so, and that it came from the command line.
    static func apply(_ overrides: [(String, Override)], to state: inout PurchaseState, graph: RuleGraph,
                      environment: Environment?) throws(CLIError) {
        let env = environment ?? state.environment ?? .live
        for (product, value) in overrides {
            guard graph[env].productIndex[product] != nil else {
                throw CLIError("--override \(product)=\(value.rawValue): "
                               + "no product `\(product)` in environment \(env.rawValue)")
            }
            state.setOverride(product, value)
        }
    }

    static func answer(_ query: Query, _ evaluation: Evaluation) throws(EvaluationError) -> [EvaluationResult] {
        switch query {
        case .feature(let f, let required): [.feature(try evaluation.feature(f, required: required))]
        case .product(let p): [.product(try evaluation.product(p))]
        case .entitlement(let e): [.entitlement(try evaluation.entitlement(e))]
        case .all: evaluation.all()
        }
    }

    /// A batch block's output and what its lines came to, and what its thread keeps from one
    /// line's evaluation for the next.
    struct BatchBlock: ~Copyable {
        var out: JSONBytes
        var lines = 0, errors = 0, warnings = 0
        var scratch = EvaluationScratch()
        /// The result of a `--feature` query, and of each feature of an `--all` line, answered into
        /// line after line and emptied after each (`Evaluation.feature(_:required:into:)`).
        var feature = FeatureResult()
        /// The result of an `--entitlement` query, likewise (`Evaluation.entitlement(_:into:)`).
        var entitlement = EntitlementResult()
    }

    /// One JSON object per input line, in order; a line that cannot be evaluated yields
    /// `{"line": N, "error": "…"}` and the others go on. The output is byte-identical for any
    /// `jobs`.
    static func runBatch(_ path: String, _ options: Options, jobs: Int,
                         failOnError: Bool) throws(CLIError) -> ExitCode {
        // One instant for every line that gives none (`now`), printed in each result's `at`.
        let clock = Instant.now(), queryIndex = options.queryIndex
        var (lines, errors, warnings) = (0, 0, 0)
        // A block's output is written in place, line after line, into a buffer reserved for 2 KB
        // a line (a line of one entitlement is about 500 bytes; pages are resident only once
        // written, and a buffer that grows copies what it holds).
        let initial = { @Sendable in BatchBlock(out: JSONBytes(capacity: JSONLines.blockLines * 2048)) }
        try JSONLines.process(path, jobs: jobs, initial: initial,
                              reset: { $0.out.removeAll(); ($0.lines, $0.errors, $0.warnings) = (0, 0, 0) },
                              line: { line, number, block in
            block.lines += 1
            switch evaluateLine(line, number: number, options, queryIndex: queryIndex, clock: clock,
                                scratch: &block.scratch, feature: &block.feature, entitlement: &block.entitlement,
                                into: &block.out) {
            case .failed: block.errors += 1
            case .evaluated(let n): block.warnings += n
            }
        }, size: { $0.out.count }, consume: { block in
            block.out.withBytes { Terminal.emit(bytes: $0) }
            lines += block.lines
            errors += block.errors
            warnings += block.warnings
        })
        Terminal.emitError("\(lines.counted("line")), \(errors.counted("error")), \(warnings.counted("warning"))\n")
        return failOnError && errors > 0 ? .no : .success
    }

    /// What became of one batch line.
    enum LineOutcome {
        /// Evaluated, with this many warnings.
        case evaluated(Int)
        /// An error record in its place.
        case failed
    }

    /// Writes one line's JSON: the results, or `{"line": N, "error": "…"}`. The line is decoded and
    /// evaluated in `scratch`, and its evaluation given back to it.
    @discardableResult
    static func evaluateLine(_ line: JSONLines.Line, number: Int, _ options: Options,
                             queryIndex: (live: Int?, test: Int?), clock: Instant,
                             scratch: inout EvaluationScratch, feature result: inout FeatureResult,
                             entitlement answer: inout EntitlementResult, into out: inout JSONBytes) -> LineOutcome {
        func failure(_ message: String) -> LineOutcome {
            out.beginObject()
            out.key("line"); out.int(Int64(number))
            out.key("error"); out.string(message)
            out.endObject()
            out.endLine()
            return .failed
        }
        do {
            try JSONLines.read(line, into: &scratch, options.decoding)
            if !options.overrides.isEmpty {
                do throws(CLIError) {
                    try apply(options.overrides, to: &scratch.state, graph: options.graph,
                              environment: options.environment)
                } catch {
                    return failure(error.message)
                }
            }
            let at = options.at ?? scratch.state.now ?? clock
            let evaluation = try scratch.evaluation(graph: options.graph, environment: options.environment, at: at,
                                                    explain: options.explain, unlock: options.unlock,
                                                    strict: options.decoding.strict)
            // One result written as it is (no array, no copy into an `EvaluationResult`).
            let warnings: Int
            let index = evaluation.environment == .live ? queryIndex.live : queryIndex.test
            switch options.query {
            case .feature(let f, let required):
                if let index {
                    evaluation.feature(index, required: required, into: &result)  // empty: reset below
                } else {
                    result = try evaluation.feature(f, required: required)
                }
                warnings = write(evaluation) { evaluation.writeJSONLine(result, warnings: $0, into: &out) }
                // Emptied for the next line now: its reason may hold the evaluation, and with it the
                // tables the next line is read into (held, they would be made again for it).
                result.reset()
            case .entitlement(let e):
                if let index {
                    evaluation.entitlement(index, into: &answer)  // empty: reset below
                } else {
                    answer = try evaluation.entitlement(e)
                }
                warnings = write(evaluation) { evaluation.writeJSONLine(answer, warnings: $0, into: &out) }
                answer.reset()
            case .product(let p):
                let result = try evaluation.product(p)
                warnings = write(evaluation) { evaluation.writeJSONLine(result, warnings: $0, into: &out) }
            case .all:
                // Each result written as it is answered, the features into `result`.
                warnings = write(evaluation) { evaluation.writeAllJSONLine(warnings: $0, feature: &result, into: &out) }
            }
            scratch.recycle(consume evaluation)
            return .evaluated(warnings)
        } catch let error as StateError {
            return failure(error.description)
        } catch {
            return failure("\(error)")
        }
    }

    /// Hands `evaluation`'s warnings, read once the query is answered, to `write`; their number.
    private static func write(_ evaluation: borrowing Evaluation, _ write: ([StateError]) -> Void) -> Int {
        let warnings = evaluation.warnings
        write(warnings)
        return warnings.count
    }
}
