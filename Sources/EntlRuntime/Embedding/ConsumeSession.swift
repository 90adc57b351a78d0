/// `Evaluator.consume`'s memory of the customer's ledger between uses (§5, a resumable replay
/// position): where every grant instance's ledger stands after the recorded uses, the first record
/// of each id, and the answers of the latest uses. A use at or after the latest recorded instant is
/// checked and charged against that position — the cost of a consume does not grow with the
/// length of the history — and its answer is the one `Consumption.decide` gives on the whole state.
///
/// The position is the state's while the tracker's change count moves only by the uses recorded
/// here; any other change (a purchase, a use recorded elsewhere) makes the next consume replay the
/// whole state once and start again from there. A request the position cannot answer as the whole
/// state would — a use dated before the latest record, an id seen before whose answer is
/// forgotten, a tracker that does not count its changes, undated usage records, a purchase whose
/// status ended it within its dates or is unknown — is left to `Consumption.decide` (nil).
struct ConsumeSession {
    let graph: RuleGraph
    let environment: Environment?

    /// The tracker's change count the session holds the state of (nil: none yet).
    private var changes: UInt64?
    /// Whether the state of `changes` can be extended here (see the type's comment).
    private var usable = false
    private var usageCount = 0
    /// The latest instant of a dated usage record (a use before it may push a later one into
    /// overage, which only the whole state shows), of the ledger of a compacted state, and of a
    /// check answered here (the position's ledgers stand in its windows: they only move forward).
    private var frontier: Instant?
    /// The state without its usage records, evaluated at some instant, with every credit
    /// component's replays started from the position and kept up to date in its tables.
    private var light: Evaluation?
    /// The candidates `light` found hold before this instant (nil: forever).
    private var lightUntil: Instant?
    /// The purchases whose status ended them (`expired`, `billing_retry`) or is `unknown`, and their
    /// products: read at a past instant within their dates the first were owned, so a use then is
    /// charged otherwise later than now; the second pay in the certain balance (`Consumption`'s
    /// `unspent` decides those).
    private var unsettled: [(purchase: Int, product: Int)] = []
    /// The first record with each id (-1 - k: the use at place k of a compacted state's ledger). Its
    /// ids are read from the state of each request: the state of `changes`, which holds every record
    /// noted (a tracker's change count moves by one per record it appends, `UsageRecording`).
    private var ids = IDIndex()
    /// The answers of the latest uses recorded here, for their retries: the answer of the record at
    /// place `k` of `usage` in slot `k % answerLimit` of `answers`, and `k` in that of `answered`
    /// (-1: none).
    private var answers: [FeatureResult] = []
    private var answered: [Int] = []

    /// How many answers are kept for retries (an older retry replays the whole state).
    static let answerLimit = 1_024

    init(graph: RuleGraph, environment: Environment?) {
        self.graph = graph
        self.environment = environment
    }

    /// The session's answer to a request, and the use to record (nil: none).
    struct Answered {
        var result: FeatureResult
        var record: UsageRecord?
    }

    /// The answer to a request to use `amount` of `feature` at `at`, with the record to append, or
    /// nil when `Consumption.decide` must answer it on the whole state. `changes`: the tracker's
    /// change count (`UsageRecording.recordUsage(counted:)`).
    mutating func consume(state: PurchaseState, changes: UInt64?, feature: String, amount: Int64, id: String?,
                          at: Instant) throws(EvaluationError) -> Answered? {
        guard let changes else { return nil }
        let (env, f) = try Consumption.request(graph: graph, state: state, environment: environment,
                                               feature: feature, amount: amount, id: id, at: at)
        if changes != self.changes { rebuild(state, changes: changes, environment: env, at: at) }
        guard usable, frontier.map({ at >= $0 }) ?? true, safe(at, state) else { return nil }
        // The id's hash, taken once: looked up now, noted with the record.
        let hash = id.map(IDIndex.hash)
        if let id, let hash, let first = ids.first(hash: hash, isID: { state.hasID(id, atPlace: $0) }) {
            // A retry answered from memory; a conflict, or an answer forgotten, from the whole state.
            guard first >= 0, first < state.usage.count, !answered.isEmpty,
                  answered[first % ConsumeSession.answerLimit] == first, state.usage[first].kind == .amount(amount),
                  name(of: state.usage[first], in: graph[env]) == f
            else { return nil }
            var answer = answers[first % ConsumeSession.answerLimit]
            answer.replayed = true
            return Answered(result: answer, record: nil)
        }
        guard let e = evaluation(at: at, state: state, environment: env) else { return nil }
        let c = graph[env].componentOf[f]
        let replays = e.replays(ofComponent: c)
        e.advance(replays)
        frontier = at
        let answer = e.feature(f, required: amount)
        guard answer.allowed else { return Answered(result: answer, record: nil) }
        e.record(UseEvent(at: at, amount: amount, index: usageCount, member: graph[env].componentMember[f]),
                 in: replays, component: c)
        if let hash { ids.note(hash: hash, place: usageCount) }
        usageCount += 1
        self.changes = changes &+ 1
        if id != nil {
            if answered.isEmpty {
                answered = Array(repeating: -1, count: ConsumeSession.answerLimit)
                answers = Array(repeating: FeatureResult(), count: ConsumeSession.answerLimit)
            }
            answered[(usageCount - 1) % ConsumeSession.answerLimit] = usageCount - 1
            answers[(usageCount - 1) % ConsumeSession.answerLimit] = answer
        }
        return Answered(result: answer, record: UsageRecord(feature: feature, kind: .amount(amount), at: at, id: id))
    }

    /// The feature or credit system a record names.
    private func name(of record: UsageRecord, in g: EnvironmentGraph) -> Int? {
        record.isEvent ? g.eventIndex[record.name] : g.featureIndex[record.name] ?? g.eventIndex[record.name]
    }

    /// Starts again from the whole state: its replay up to its latest record gives the position.
    private mutating func rebuild(_ state: PurchaseState, changes: UInt64, environment env: Environment,
                                  at: Instant) {
        self = ConsumeSession(graph: graph, environment: environment)
        self.changes = changes
        // A value the state's JSON cannot hold: `decide` says which (the session is not used).
        guard state.rangeError == nil else { return }
        // An undated record counts at whatever instant the state is evaluated: no position holds it.
        guard !state.usage.contains(where: { $0.at == nil }) else { return }
        var latest = state.ledger?.before
        for record in state.usage { latest = max(latest ?? record.at!, record.at!) }
        frontier = latest
        let start = latest ?? at
        var positions = [ComponentPosition?](repeating: nil, count: graph[env].components.count)
        do throws(EvaluationError) {
            if let latest {
                let whole = try Evaluation(graph: graph, state: state, environment: env, at: latest)
                positions = positions.indices.map { whole.replays(ofComponent: $0).position }
            }
            try makeLight(state, environment: env, at: start, positions: positions)
        } catch {
            return
        }
        unsettled = state.purchases.indices.compactMap { j in
            let p = light!.purchaseProduct[j]
            let status = state.purchases[j].status
            return p >= 0 && [.expired, .billingRetry, .unknown].contains(status) ? (j, Int(p)) : nil
        }
        guard safe(start, state) else { return }
        ids = IDIndex(capacity: state.usage.count + (state.ledger?.ids.count ?? 0))
        func note(_ id: String, _ place: Int) {
            _ = ids.first(hash: IDIndex.hash(id), elseNote: place, isID: { state.hasID(id, atPlace: $0) })
        }
        for (k, use) in (state.ledger?.ids ?? []).enumerated() { note(use.id, -1 - k) }
        for (i, record) in state.usage.enumerated() { if let id = record.id { note(id, i) } }
        usageCount = state.usage.count
        usable = true
    }

    /// Whether a use at `at` is charged later as it is now: no purchase whose status ended it was
    /// owned then within its dates (a past reading would count it, the check at `at` does not), and
    /// none whose status is unknown may have been.
    private func safe(_ at: Instant, _ state: PurchaseState) -> Bool {
        guard !unsettled.isEmpty else { return true }
        let products = light!.graph.products
        return state.purchases.withUnsafeBufferPointer { purchases in
            unsettled.allSatisfy { j, p in
                !Consumption.chargedLater(purchases.baseAddress! + j, product: p, products: products, at: at)
            }
        }
    }

    /// The light evaluation at `at`: the kept one moved to `at` while its candidates hold, else a
    /// new one at `at` whose replays start where the kept one's stand.
    private mutating func evaluation(at: Instant, state: PurchaseState, environment env: Environment) -> Evaluation? {
        guard let light else { return nil }
        if at >= light.at, lightUntil.map({ at < $0 }) ?? true { return Evaluation(light, at: at) }
        let positions = light.graph.components.indices.map { light.replays(ofComponent: $0).position }
        do {
            try makeLight(state, environment: env, at: at, positions: positions)
        } catch {
            usable = false
            return nil
        }
        return self.light
    }

    /// Evaluates the state without its usage at `at`, every credit component's replays starting at
    /// `positions`, and notes until when its candidates hold.
    private mutating func makeLight(_ state: PurchaseState, environment env: Environment, at: Instant,
                                    positions: [ComponentPosition?]) throws(EvaluationError) {
        var bare = state
        bare.usage = []
        bare.ledger = nil
        let e = try Evaluation(graph[env], state: bare, environment: env, at: at, explain: false, unlock: false)
        e.tables.positions = positions
        for c in e.graph.components.indices { _ = e.replays(ofComponent: c) }
        light = e
        lightUntil = e.candidatesChange
    }
}

extension Evaluation {
    /// `e` at a later instant `at`, sharing its tables: valid while nothing `e` resolved changes
    /// (before `candidatesChange`).
    init(_ e: Evaluation, at: Instant) {
        graph = e.graph
        environment = e.environment
        self.at = at
        explains = e.explains
        unlocks = e.unlocks
        tables = e.tables
    }

    /// The first instant after `t` at which the state, read then, may resolve otherwise: a purchase
    /// starts, ends or leaves its grace period, a state grant starts or ends, the customer's
    /// account starts, a lot lapses (nil: never).
    var candidatesChange: Instant? {
        var next: Instant?
        func consider(_ instant: Instant?) { if let instant, instant > at { next = earliest(next, instant) } }
        for (j, p) in state.purchases.enumerated() {
            consider(p.purchasedAt)
            consider(p.expiresAt)
            consider(p.graceUntil)
            consider(tables.ends[j].instant)
        }
        for g in state.grants {
            consider(g.from)
            consider(g.until)
        }
        consider(state.customerSince)
        for c in graph.components.indices {
            for candidate in replays(ofComponent: c).candidates { consider(lotExpiry(candidate)) }
        }
        return next
    }

    /// Moves a component's replays (kept from an earlier instant) to `t`, as a replay up to `t`
    /// leaves them.
    func advance(_ replays: ComponentReplays) {
        replays.low.advanceAll(to: at)
        if replays.uncertain { replays.high.advanceAll(to: at) }
        replays.finish(candidates: replays.candidates, low: replays.low, high: replays.high,
                       uncertain: replays.uncertain, inputsChange: grantsChange(replays.candidates, replays.high),
                       trails: [])
    }

    /// Charges one more use, at `t`, to component `c`'s replays: the uses recorded since are
    /// charged to the candidates at `t`.
    func record(_ use: UseEvent, in replays: ComponentReplays, component c: Int) {
        withUnsafeTemporaryAllocation(of: UseEvent.self, capacity: 1) { event in
            event.initializeElement(at: 0, to: use)
            func run(_ r: ComponentReplay) {
                _ = r.run(UnsafeBufferPointer(event), routes: graph.componentRoutes[c], at: at, explain: false,
                          grantName: { _ in "" }, featureName: { _ in "" }, systemUnit: { _, _ in "" })
            }
            run(replays.low)
            if replays.uncertain { run(replays.high) }
        }
    }
}
