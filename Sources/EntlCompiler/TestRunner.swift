import EntlRuntime
import EntlSyntax

/// Runs the `test "…" { … }` blocks of a rule set (`entlc test`): builds each test's state
/// (a state file, then `given`, `used`, `level`, `override`, `grant` on top), evaluates it at the test's
/// instant, and compares every `expect`.
///
/// State files are read through `loadState`, so only the caller touches the file system.
public struct TestRunner {
    /// One `expect` that did not hold.
    public struct Failure: Sendable, Equatable {
        public var file: String
        public var location: SourceLocation
        /// The expectation as written: "expect api_calls allowed balance 8800".
        public var expectation: String
        public var expected: String
        public var actual: String
    }

    public struct Outcome: Sendable, Equatable {
        public var name: String
        public var file: String
        public var location: SourceLocation
        public var failures: [Failure]
        /// Why the test could not run at all (no instant, unreadable state file …); `location` is then
        /// where (its `state` line for a state file, else the test).
        public var error: String?

        public var passed: Bool { failures.isEmpty && error == nil }
    }

    let checked: CheckedRuleSet
    let graph: RuleGraph
    let loadState: (String) throws -> [UInt8]

    /// `checked` must be the checked rule set `graph` was compiled from.
    public init(checked: CheckedRuleSet, graph: RuleGraph, loadState: @escaping (String) throws -> [UInt8]) {
        self.checked = checked
        self.graph = graph
        self.loadState = loadState
    }

    /// Runs every test whose description contains `filter` (all when nil), in rule-set order.
    public func run(filter: String? = nil) -> [Outcome] {
        var outcomes: [Outcome] = []
        for test in checked.model.tests {
            if let filter, !test.syntax.description.value.contains(filter) { continue }
            outcomes.append(run(test.syntax, file: test.site.file))
        }
        return outcomes
    }

    private func run(_ test: TestDeclaration, file: String) -> Outcome {
        var outcome = Outcome(name: test.description.value, file: file, location: test.range.start, failures: [],
                              error: nil)
        let evaluation: Evaluation
        do {
            evaluation = try prepare(test, file: file)
        } catch let error as TestError {
            outcome.error = error.message
            if let place = error.place { outcome.location = place }
            return outcome
        } catch {
            outcome.error = "\(error)"
            return outcome
        }
        for item in test.items {
            guard case .expect(let e) = item.kind else { continue }
            if let failure = check(e, in: evaluation, file: file, at: item.range.start) {
                outcome.failures.append(failure)
            }
        }
        return outcome
    }

    struct TestError: Error {
        var message: String
        /// The item it is about (a `state` line), when not the test as a whole.
        var place: SourceLocation?
    }

    /// The state and instant of a test, evaluated.
    private func prepare(_ test: TestDeclaration, file: String) throws -> Evaluation {
        var state = PurchaseState()
        var at: Instant?
        var env: Environment?
        /// The state file read: its item and its path.
        var stateFile: (item: TestItem, path: String)?
        for item in test.items {
            switch item.kind {
            case .state(let path):
                let resolved = TestRunner.resolve(path.value, relativeTo: file)
                let bytes: [UInt8]
                do {
                    bytes = try loadState(resolved)
                } catch {
                    throw TestError(message: "cannot read state file `\(resolved)`: \(error)", place: item.range.start)
                }
                // Strict: a misspelled key in a test's state would make the test mean something else.
                do {
                    state = try PurchaseState(json: bytes, options: StateDecodingOptions(strict: true))
                    stateFile = (item, resolved)
                } catch {
                    throw TestError(message: "state file `\(resolved)`: \(error)", place: item.range.start)
                }
            case .at(let instant): at = Instant(rfc3339: instant.value)
            case .env(let e): env = e.value == .test ? .test : .live
            default: break
            }
        }
        // `env`, else the state file's, else live. An `expect` naming what that environment lacks
        // (the checker resolved it in live) is a failure, never a pass (`check`).
        let environment = env ?? state.environment ?? .live
        let fileState = state
        for item in test.items {
            switch item.kind {
            case .given(let g):
                let since = g.since.flatMap { Instant(rfc3339: $0.value) }
                let status = g.status.map { PurchaseStatus(rawValue: $0.value.rawValue) ?? .active } ?? .active
                state.purchases.append(Purchase(
                    product: g.product.name, status: status, purchasedAt: since, periodStart: since,
                    expiresAt: g.until.flatMap { Instant(rfc3339: $0.value) },
                    graceUntil: g.graceUntil.flatMap { Instant(rfc3339: $0.value) },
                    ownership: g.familyShared == nil ? .purchased : .familyShared, quantity: g.quantity?.value ?? 1,
                    environment: environment))
            case .used(let f, let n, let when, let id):
                state.usage.append(UsageRecord(feature: f.name, kind: .amount(n.value),
                                               at: when.flatMap { Instant(rfc3339: $0.value) }, id: id?.value))
            case .customerSince(let since):
                state.customerSince = Instant(rfc3339: since.value)
            case .level(let f, let n, let when):
                state.usage.append(UsageRecord(feature: f.name, kind: .level(n.value),
                                               at: when.flatMap { Instant(rfc3339: $0.value) }))
            case .override(let p, let v):
                state.setOverride(p.name, Override(rawValue: v.value.rawValue) ?? .unknown)
            case .grant(let g):
                state.grants.append(stateGrant(g, in: graph[environment]))
            default:
                break
            }
        }
        guard let instant = at ?? state.now else {
            throw TestError(message: "the test has no `at` and its state has no `now`")
        }
        // Strict as well for what the rules cannot make sense of in the file (docs/state.md,
        // "Warnings"): a misspelled feature's uses would be left out, and the test pass.
        if let stateFile {
            do {
                _ = try Evaluation(graph: graph, state: fileState, environment: environment, at: instant, strict: true)
            } catch {
                throw TestError(message: "state file `\(stateFile.path)`: \(error.message)",
                                place: stateFile.item.range.start)
            }
        }
        do {
            return try Evaluation(graph: graph, state: state, environment: environment, at: instant)
        } catch {
            throw TestError(message: error.message)
        }
    }

    /// A test's `grant` as a state's `grants` entry (docs/state.md). Without `from` it counts from
    /// the Unix epoch: every use the test records is charged to it, and its `per` windows start on
    /// the calendar's (a month's on the 1st).
    /// INVARIANT: the checker refused a name of the wrong kind and instants that do not parse.
    private func stateGrant(_ g: TestGrant, in graph: EnvironmentGraph) -> StateGrant {
        let isEntitlement = graph.entitlementIndex[g.name.name] != nil
        let amount: EntlRuntime.Grant.Amount = switch g.amount {
        case .count(let n)?: .count(n.value)
        case .unlimited?: .unlimited
        case nil: .none
        }
        return StateGrant(target: isEntitlement ? .entitlement(g.name.name) : .feature(g.name.name), amount: amount,
                          interval: g.per.flatMap { Interval(rawValue: $0.value.rawValue) },
                          overage: g.overage.map { $0.cap.map { .upTo($0.value) } ?? .unbounded },
                          from: g.from.flatMap { Instant(rfc3339: $0.value) } ?? Instant(seconds: 0),
                          until: g.until.flatMap { Instant(rfc3339: $0.value) })
    }

    /// A path relative to the rule file's directory (absolute paths stay).
    static func resolve(_ path: String, relativeTo file: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }

    private func check(_ e: Expectation, in evaluation: Evaluation, file: String, at location: SourceLocation)
        -> Failure?
    {
        let name = e.name.name
        var expected = e.decision.value.rawValue
        var actual: String
        var holds: Bool
        let graph = evaluation.graph
        // An answer that cannot be had is a failure, never a pass.
        func unanswered(_ error: Error) -> Failure {
            Failure(file: file, location: location, expectation: "expect \(name)", expected: expected,
                    actual: "no answer: \((error as? EvaluationError)?.message ?? "\(error)")")
        }
        guard graph.featureIndex[name] != nil || graph.entitlementIndex[name] != nil
                || graph.productIndex[name] != nil else {
            let environment = evaluation.environment.rawValue
            return Failure(file: file, location: location, expectation: "expect \(name)", expected: expected,
                           actual: "no answer: `\(name)` is not declared in environment \(environment)")
        }
        if graph.featureIndex[name] != nil {
            let r: FeatureResult
            do { r = try evaluation.feature(name, required: e.amount?.value ?? 1) } catch { return unanswered(error) }
            actual = r.decision.rawValue
            holds = r.decision.rawValue == e.decision.value.rawValue
            switch e.balance {
            case .amount(let n)?:
                expected += " balance \(n.value)"
                holds = holds && !r.unlimited && r.balance == n.value
            case .unlimited?:
                expected += " balance unlimited"
                holds = holds && r.unlimited
            case nil:
                break
            }
            if e.balance != nil {
                actual += " balance " + (r.unlimited ? "unlimited" : r.balance.map(String.init) ?? "none")
            }
            switch e.via {
            case .direct?:
                expected += " via direct"
                holds = holds && r.via == .direct
            case .credits(_, let system)?:
                expected += " via credits" + (system.map { " \($0.name)" } ?? "")
                holds = holds && r.via == .credits && (system == nil || r.creditSystem == system?.name)
            case .overage?:
                expected += " via overage"
                holds = holds && r.via == .overage
            case nil:
                break
            }
            if e.via != nil {
                actual += r.via.map { " via \($0.rawValue)" + ($0 == .credits ? " \(r.creditSystem ?? "")" : "") }
                    ?? " via nothing"
            }
            actual += " (\(r.reason))"
        } else if graph.entitlementIndex[name] != nil {
            let r: EntitlementResult
            do { r = try evaluation.entitlement(name) } catch { return unanswered(error) }
            holds = r.decision.rawValue == e.decision.value.rawValue
            actual = "\(r.decision.rawValue) (\(r.reason))"
        } else {
            let r: ProductResult
            do { r = try evaluation.product(name) } catch { return unanswered(error) }
            holds = r.decision.rawValue == e.decision.value.rawValue
            actual = "\(r.decision.rawValue) (\(r.reason))"
        }
        guard !holds else { return nil }
        let written = "expect \(name)" + (e.amount.map { " \($0.value)" } ?? "") + " " + expected
        return Failure(file: file, location: location, expectation: written, expected: expected, actual: actual)
    }
}
