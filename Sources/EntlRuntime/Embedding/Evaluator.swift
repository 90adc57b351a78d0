/// Answers "may this customer use this feature, how much is left, why, and until when?" for the
/// customer a `PurchaseTracker` follows, against a compiled `RuleGraph`.
///
/// ```swift
/// let graph = try RuleGraphArtifact(bytes: builtGraph).graph  // `entlc build`, or Compiler.compile
/// let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(json: stateBytes))
/// let calls = try evaluator.entitled(feature: "api_calls", requiredBalance: 1)
/// if calls.allowed { … } else { print(calls.reason) }
/// // Cache the answer until calls.validUntil.
/// ```
///
/// Results are cached exactly: a result computed at `t` holds at every later instant before its
/// `validUntil` (nothing it depends on changes by itself before then, docs/semantics.md §6), so a
/// repeated question is answered from the cache until then, or until the tracker reports a
/// change (trackers must notify observers of every change).
public final class Evaluator: Sendable {
    public let graph: RuleGraph
    public let tracker: any PurchaseTracker
    /// Wins over the state's own `environment`; nil: the state's, else live.
    public let environment: Environment?

    /// The cache's slots: one per name of each kind, in both environments.
    private let featureSlots: NameSlots, productSlots: NameSlots, entitlementSlots: NameSlots
    private let cache: SpinLocked<ResultCache>
    private let observation = Locked<TrackerObservation?>(nil)
    /// `consume`'s memory of the ledger between uses.
    private let session: Locked<ConsumeSession>
    /// The tracker, when it records usage (`consume`).
    private let recorder: (any UsageRecording)?

    public init(graph: RuleGraph, tracker: any PurchaseTracker, environment: Environment? = nil) {
        self.graph = graph
        self.tracker = tracker
        self.environment = environment
        session = Locked(ConsumeSession(graph: graph, environment: environment))
        recorder = tracker as? any UsageRecording
        let (live, test) = (graph.live, graph.test)
        featureSlots = NameSlots(live: live.features.map(\.name), live.featureNames,
                                 test: test.features.map(\.name), test.featureNames)
        productSlots = NameSlots(live: live.products.map(\.name), live.productNames,
                                 test: test.products.map(\.name), test.productNames)
        entitlementSlots = NameSlots(live: live.entitlements.map(\.name), live.entitlementNames,
                                     test: test.entitlements.map(\.name), test.entitlementNames)
        cache = SpinLocked(ResultCache(features: featureSlots.count, products: productSlots.count,
                                       entitlements: entitlementSlots.count))
        let token = tracker.observeChanges { [weak self] in
            self?.cache.withLock { c in
                c.generation &+= 1
                c.removeAll()
            }
        }
        observation.withLock { $0 = token }
    }

    /// One evaluation of the tracker's current state at `at`, to ask several questions of.
    /// `unlock`: results that are not allowed say which products would allow them.
    public func evaluation(at: Instant = .now(), explain: Bool = false, unlock: Bool = false) throws(EvaluationError)
        -> Evaluation
    {
        try Evaluation(graph: graph, state: tracker.snapshot, environment: environment, at: at, explain: explain,
                       unlock: unlock)
    }

    /// The cached answer to a question at `at` (`lookup`), or a fresh one (`compute`), then cached
    /// (`store`) until its `validUntil`.
    @inline(__always)
    private func answer<R>(at: Instant, lookup: (inout ResultCache) -> ResultTable<R>.Box?,
                           store: (inout ResultCache, ResultTable<R>.Box) -> Void,
                           _ compute: (Evaluation) throws(EvaluationError) -> R) throws(EvaluationError) -> R {
        let (generation, hit) = cache.withLock { c in (c.generation, lookup(&c)) }
        if let hit { return hit.value }
        let result = try compute(evaluation(at: at))
        let box = ResultTable<R>.Box(result)
        cache.withLock { c in
            guard c.generation == generation else { return }  // the tracker changed meanwhile
            c.reserveOne()
            store(&c, box)
        }
        return result
    }

    /// The id of the feature or credit system `name`, to ask about without hashing its name on
    /// every call (`entitled(_:requiredBalance:at:)`); nil when the rules have none of that name.
    public func feature(named name: String) -> FeatureID? {
        graph.featureID(named: name)
    }

    /// May the customer use `feature`? For a metered feature, whether `requiredBalance` units are
    /// available (directly, or paid for by a credit system).
    public func entitled(feature: String, requiredBalance: Int64 = 1, at: Instant = .now()) throws(EvaluationError)
        -> FeatureResult
    {
        try entitled(featureSlots.slot(feature), name: feature, requiredBalance: requiredBalance, at: at)
    }

    /// `entitled(feature:requiredBalance:at:)` for a resolved feature (`feature(named:)`, or the
    /// ids `entlc gen swift` writes): a repeated question is answered without hashing a name.
    public func entitled(_ feature: FeatureID, requiredBalance: Int64 = 1, at: Instant = .now())
        throws(EvaluationError) -> FeatureResult
    {
        try entitled(featureSlots.slot(feature), name: feature.name, requiredBalance: requiredBalance, at: at)
    }

    private func entitled(_ slot: Int?, name: String, requiredBalance: Int64,
                          at: Instant) throws(EvaluationError) -> FeatureResult {
        // A name no environment has: the evaluation says so (nothing to cache).
        guard let slot else { return try evaluation(at: at).feature(name, required: requiredBalance) }
        return try answer(at: at, lookup: { $0.features.lookup(slot, required: requiredBalance, at: at) },
                          store: { $0.features.store(slot, required: requiredBalance, result: $1, from: at,
                                                     until: $1.value.validUntil) }) { e throws(EvaluationError) in
            try e.feature(name, required: requiredBalance)
        }
    }

    /// Does the customer own `product` (and, for a consumable, how many units)?
    public func entitled(product: String, at: Instant = .now()) throws(EvaluationError) -> ProductResult {
        guard let slot = productSlots.slot(product) else { return try evaluation(at: at).product(product) }
        return try answer(at: at, lookup: { $0.products.lookup(slot, required: 0, at: at) },
                          store: { $0.products.store(slot, required: 0, result: $1, from: at,
                                                     until: $1.value.validUntil) }) {
            e throws(EvaluationError) in try e.product(product)
        }
    }

    /// Is the entitlement active, and through which purchase, until when?
    public func entitlement(_ name: String, at: Instant = .now()) throws(EvaluationError) -> EntitlementResult {
        guard let slot = entitlementSlots.slot(name) else { return try evaluation(at: at).entitlement(name) }
        return try answer(at: at, lookup: { $0.entitlements.lookup(slot, required: 0, at: at) },
                          store: { $0.entitlements.store(slot, required: 0, result: $1, from: at,
                                                         until: $1.value.validUntil) }) {
            e throws(EvaluationError) in try e.entitlement(name)
        }
    }

    /// What a paywall shows for a feature that is not allowed: the products (declaration order)
    /// any one of which, bought now, would allow `requiredBalance` units of it; nil when it is
    /// allowed already. Computed fresh (one evaluation per product that can matter), not cached:
    /// what a purchase would do depends on the instant it is made (`purchased before` dates).
    public func unlockingProducts(feature: String, requiredBalance: Int64 = 1,
                                  at: Instant = .now()) throws(EvaluationError) -> [String]? {
        try evaluation(at: at, unlock: true).feature(feature, required: requiredBalance).unlockedBy
    }

    /// Every product, entitlement, feature and credit system, in declaration order.
    public func evaluateAll(at: Instant = .now()) throws(EvaluationError) -> [EvaluationResult] {
        try evaluation(at: at).all()
    }

    /// Check and consume: may the customer use `amount` units of `feature` now, and if so, record
    /// that use — in one critical section of the tracker, so two concurrent consumers can never
    /// both spend the last unit. Returns the check's result; the use is recorded (with `at` and
    /// `id`) only when it is allowed and, replayed with every record (later ones included), it
    /// adds no overage (`Consumption.decide`).
    ///
    /// With an `id`, a retry is safe: when the state already holds a use with that `id` for the
    /// same feature and amount, nothing is recorded and the answer is the one the first call got
    /// (the check as it was just before that use, at its instant), marked `replayed`. The same `id`
    /// for another feature or amount throws: ids are idempotency keys, unique per customer. A
    /// first call that was denied recorded nothing, so its retry is a new check.
    /// `at`: the instant of the use; nil, the clock's, read inside the tracker's critical section
    /// (so concurrent consumers record in the order they were decided).
    ///
    /// On a tracker that counts its changes (`JSONPurchaseTracker`), the evaluator keeps where the
    /// ledger stands after the uses it recorded and the ids in an index, so a use at or after the
    /// latest recorded one costs the same however long the history is; anything else (a purchase
    /// changed, a use dated earlier) replays the whole state once. The answers are the same.
    public func consume(feature: String, amount: Int64 = 1, id: String? = nil,
                        at: Instant? = nil) throws(EvaluationError) -> FeatureResult {
        guard let recorder else {
            throw EvaluationError("the tracker cannot record usage (it does not conform to UsageRecording)")
        }
        // An unknown feature is refused inside (`Consumption.request`), with the same message.
        var answer: FeatureResult?
        try recorder.recordUsage(counted: {
            (state: PurchaseState, changes: UInt64?) throws(EvaluationError) -> UsageRecord? in
            let now = at ?? .now()
            let kept = try session.withLock { (s: inout ConsumeSession) throws(EvaluationError) in
                try s.consume(state: state, changes: changes, feature: feature, amount: amount, id: id, at: now)
            }
            if let kept {
                answer = kept.result
                return kept.record
            }
            let decision = try Consumption.decide(graph: graph, state: state, environment: environment,
                                                  feature: feature, amount: amount, id: id, at: now)
            answer = decision.result
            return decision.record
        })
        // A tracker of the app's own that never called `decide` decided nothing.
        guard let answer else { throw EvaluationError("the tracker's recordUsage did not decide the use") }
        return answer
    }
}
