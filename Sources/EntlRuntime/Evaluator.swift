/// Answers "may this customer use this feature, how much is left, why, and until when?" for the
/// customer a `PurchaseTracker` follows, against a compiled `RuleGraph`.
///
/// ```swift
/// let graph = try JSONDecoder().decode(RuleGraph.self, from: compiledGraph)  // or Compiler.compile
/// let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(json: stateBytes))
/// let calls = try evaluator.entitled(feature: "api_calls", requiredBalance: 1)
/// if calls.allowed { … } else { print(calls.reason) }
/// // Cache the answer until calls.validUntil.
/// ```
public final class Evaluator: Sendable {
    public let graph: RuleGraph
    public let tracker: any PurchaseTracker
    /// Wins over the state's own `environment`; nil: the state's, else live.
    public let environment: Environment?

    public init(graph: RuleGraph, tracker: any PurchaseTracker, environment: Environment? = nil) {
        self.graph = graph
        self.tracker = tracker
        self.environment = environment
    }

    /// One evaluation of the tracker's current state at `at`, to ask several questions of.
    public func evaluation(at: Instant = .now(), explain: Bool = false) throws(EvaluationError) -> Evaluation {
        try Evaluation(graph: graph, state: tracker.snapshot, environment: environment, at: at, explain: explain)
    }

    /// May the customer use `feature`? For a metered feature, whether `requiredBalance` units are
    /// available (directly, or paid for by a credit system).
    public func entitled(feature: String, requiredBalance: Int64 = 1, at: Instant = .now()) throws(EvaluationError)
        -> FeatureResult
    {
        try evaluation(at: at).feature(feature, required: requiredBalance)
    }

    /// Does the customer own `product` (and, for a consumable, how many units)?
    public func entitled(product: String, at: Instant = .now()) throws(EvaluationError) -> ProductResult {
        try evaluation(at: at).product(product)
    }

    /// Is the entitlement active, and through which purchase, until when?
    public func entitlement(_ name: String, at: Instant = .now()) throws(EvaluationError) -> EntitlementResult {
        try evaluation(at: at).entitlement(name)
    }

    /// Every product, entitlement, feature and credit system, in declaration order.
    public func evaluateAll(at: Instant = .now()) throws(EvaluationError) -> [EvaluationResult] {
        try evaluation(at: at).all()
    }
}
