/// §5 "Recording a use": check and consume, for `Evaluator.consume` and `entlc eval --consume`
/// alike. A pure decision on a state: whoever holds the state (a tracker's lock, a locked file)
/// records the returned use.
public enum Consumption {
    /// What to do with a request to use `amount` of a feature.
    public struct Decision: Sendable {
        /// The answer: the check at the instant of the use, or, for a retry, the first call's answer
        /// (`replayed`).
        public var result: FeatureResult
        /// The use to append to the state's `usage`; nil when nothing is to be recorded (denied,
        /// or a retry).
        public var record: UsageRecord?
        /// For a retry: the record it repeats.
        public var retryOf: Int?
    }

    /// Decides a request to use `amount` of `feature` at `at`, with an optional idempotency key.
    ///
    /// - With an `id` the state already holds (the first record with it): the same feature and
    ///   amount is a retry, answered with the first call's answer marked `replayed`, and nothing is
    ///   recorded; another feature or amount throws (`idempotency key "X" was used for usage[4]
    ///   (api_calls, amount 3)`).
    /// - Otherwise the use is recorded only when the check allows it and replaying the whole
    ///   state with it, later records included, adds no overage: a use dated before uses already
    ///   recorded never pushes one of them over the limit.
    /// `explain` and `unlock` as for `Evaluation`, for the check's result.
    public static func decide(graph: RuleGraph, state: PurchaseState, environment: Environment?, feature: String,
                              amount: Int64, id: String?, at: Instant, explain: Bool = false,
                              unlock: Bool = false) throws(EvaluationError) -> Decision {
        let (env, f) = try request(graph: graph, state: state, environment: environment, feature: feature,
                                   amount: amount, id: id, at: at)
        if let id, let k = state.ledger?.ids.firstIndex(where: { $0.id.isSameKey(as: id) }) {
            return try foldedRetry(of: k, graph: graph, state: state, environment: environment, feature: f,
                                   named: feature, amount: amount)
        }
        if let id, let first = state.usage.firstIndex(where: { $0.id?.isSameKey(as: id) ?? false }) {
            let recorded = state.usage[first]
            let named = recorded.isEvent ? graph[env].eventIndex[recorded.name]
                : graph[env].featureIndex[recorded.name] ?? graph[env].eventIndex[recorded.name]
            guard named == f, recorded.kind == .amount(amount) else {
                throw EvaluationError("idempotency key \"\(id)\" was used for usage[\(first)] (\(recorded.name), "
                                      + recorded.kind.description + ")")
            }
            var answer = try recordedAnswer(graph: graph, state: state, environment: environment, record: first,
                                            feature: feature, amount: amount, clock: at)
            answer.replayed = true
            // Only an allowed use is recorded: when the state has changed since (a plan that ended,
            // a refund), the check no longer says so, but the first answer was yes.
            if !answer.allowed {
                let when = recorded.at ?? at
                answer.decision = .allowed
                answer.via = answer.via ?? .direct
                answer.shortfall = nil
                answer.unlockedBy = nil
                answer.why = Reason(formed: {
                    "recorded as usage[\(first)] at \(when): a retry, nothing recorded again; the state has changed "
                        + "since (checked now, the use would not be allowed: the figures are of the state as it is)"
                })
            }
            return Decision(result: answer, record: nil, retryOf: first)
        }
        let check = try Evaluation(graph: graph, state: state, environment: environment, at: at, explain: explain,
                                   unlock: unlock)
        var result = try check.feature(feature, required: amount)
        guard result.allowed else { return Decision(result: result, record: nil) }
        let record = UsageRecord(feature: feature, kind: .amount(amount), at: at, id: id)
        /// The check's answer turned into a refusal, for what recording the use would do.
        func refused(_ why: @escaping @Sendable () -> String) -> Decision {
            result.decision = .denied
            result.via = nil
            (result.creditSystem, result.creditsRequired, result.creditBalance) = (nil, nil, nil)
            result.why = Reason(formed: why)
            return Decision(result: result, record: nil)
        }
        let units = graph[env].features[f].amount(amount)
        // An undated record counts at whatever instant the state is read: read later, it is a use of
        // then, which the grants this use takes may no longer leave covered (a lot that lapsed in
        // between). The state with the use is read where that would show; refused when it does, or
        // when that is not settled within bounds (fail closed).
        let members = members(of: f, in: graph[env])
        if state.usage.contains(where: { $0.at == nil }) {
            let records = members.flatMap { check.usage(of: $0) }
            if let k = records.first(where: { state.usage[$0].at == nil }) {
                let later = records.compactMap { state.usage[$0].at }.filter { $0 > at }
                switch try undatedReading(with: record, later: later, graph: graph, state: state, environment: env,
                                          members: members) {
                case .covered:
                    break
                case .uncovered(let when):
                    return refused {
                        "recording \(units) at \(at) would leave usage[\(k)] uncovered when the state is read at "
                            + "\(when): it has no instant (`at`), so it counts whenever the state is read; give it the "
                            + "instant it was made"
                    }
                case .unsettled:
                    return refused {
                        "recording \(units) at \(at) could leave usage[\(k)] uncovered later, and reading the "
                            + "state \(undatedHorizon) times after it did not settle it: it has no instant (`at`), so "
                            + "it counts whenever the state is read; give it the instant it was made"
                    }
                }
            }
        }
        switch try overLimit(by: record, graph: graph, state: state, environment: env, feature: f, at: at) {
        case .later(let k)?:
            let recorded = state.usage[k]
            return refused { "recording \(units) at \(at) would leave usage[\(k)] (at \(recorded.at ?? at)) uncovered" }
        case .itself?:
            return refused {
                "recording \(units) at \(at) would leave it uncovered once \(at) is in the past: a purchase "
                    + "that pays for it now has ended, and the grants it had then are spent"
            }
        case nil:
            break
        }
        if let unspent = try unspent(by: record, check: result, of: check, graph: graph, state: state,
                                     environment: env, feature: f, at: at) {
            return refused { unspent }
        }
        return Decision(result: result, record: record)
    }

    /// Whether a use at `at` may be charged later to `purchase`, though the check at `at` does not
    /// count it: its status ended it (`expired`, `billing_retry`) or is `unknown`, and read at `at`
    /// as a past instant (§5) it was, or may have been, owned. `product`: its product (< 0: none).
    static func chargedLater(_ purchase: UnsafePointer<Purchase>, product: Int, products: [Product],
                             at: Instant) -> Bool {
        let status = purchase.pointee.status
        guard product >= 0, status == .expired || status == .billingRetry || status == .unknown else { return false }
        let standing = OwnershipResolver.standing(purchase, products[product].kind, products[product].duration,
                                                  at: at, past: true)
        if case .notOwned = standing { return false }
        return true
    }

    /// Why recording `record` would not spend what `check` counted on, if it would not. Read just
    /// after the use, the balance that allowed it — the feature's own, and the credit system's
    /// that pays the rest — must be lower by what the check takes from it. It is not when, read
    /// later, the use falls on a grant the check did not count: a purchase whose status has ended
    /// it before its dates do (`expired` or `billing_retry` with its access end ahead, or none) is
    /// not owned now, yet at the use's instant, then a past one, it was (§5); a purchase whose
    /// status is `unknown` pays for it in the certain balance (§4's bounds). Use after use, what
    /// the check saw would stay unspent. `evaluation`: the check's.
    static func unspent(by record: UsageRecord, check: FeatureResult, of evaluation: Evaluation, graph: RuleGraph,
                        state: PurchaseState, environment: Environment, feature f: Int,
                        at: Instant) throws(EvaluationError) -> String? {
        guard let balance = check.balance, check.via == .direct || check.via == .credits,
              case .amount(let amount) = record.kind,
              // Without such a purchase, owned (or maybe) at `at` read as a past instant, read later
              // the use falls where the check counted it (as `ConsumeSession` answers then).
              state.purchases.withUnsafeBufferPointer({ purchases in
                  purchases.indices.contains { j in
                      chargedLater(purchases.baseAddress! + j, product: Int(evaluation.purchaseProduct[j]),
                                   products: graph[environment].products, at: at)
                  }
              })
        else { return nil }
        let g = graph[environment], units = g.features[f].amount(amount), just = justAfter(at)
        // Read a nanosecond later, the balances are the check's unless something changes then (a
        // window's end): fail closed at that one instant. That the uses at `at` turn past then is
        // what the reading below reads (a second use at one instant had been refused for it).
        var change = check.validUntil
        if change == just, evaluation.pastReadingChange(of: f) == just {
            var other = evaluation
            other.watchesUsesTurningPast = false
            change = other.feature(f, required: check.required ?? 1).validUntil
        }
        if let change, change <= just {
            return "recording \(units) at \(at), a nanosecond before \(change), where what pays for it cannot be "
                + "read: record it at \(change) or later"
        }
        var with = state
        // An undated record counts at the instant it is read at: pinned where the check read it (at
        // `at`, before this use), so read later it is replayed as the check replayed it.
        for k in with.usage.indices where with.usage[k].at == nil { with.usage[k].at = at }
        with.usage.append(record)
        let read = try Evaluation(graph: graph, state: with, environment: environment, at: just)
        var spent = read.feature(f, required: 1).balance.map { $0 <= max(0, balance - amount) } ?? false
        if check.via == .credits, let system = check.creditSystem, let s = g.featureNames[system],
           let credits = check.creditBalance, let cost = check.creditsRequired {
            spent = spent && read.feature(s, required: 1).balance.map { $0 <= credits - cost } ?? false
        }
        guard !spent else { return nil }
        let cause = state.purchases.indices.first { j in
            let p = state.purchases[j]
            if p.status == .unknown { return read.purchaseProduct[j] >= 0 }
            guard p.status == .expired || p.status == .billingRetry, read.purchaseProduct[j] >= 0 else { return false }
            if case .at(let end) = read.accessEnd(j) { return end > at }
            return true
        }
        guard let j = cause else {
            return "recording \(units) at \(at) would not spend what this check counted: read later, the use "
                + "falls on a grant it did not count"
        }
        let p = state.purchases[j]
        if p.status == .unknown {
            return "recording \(units) at \(at) would be charged to purchases[\(j)] (`\(p.product)`), whose status "
                + "is unknown: what the check counted would stay unspent until it is known"
        }
        let start = "recording \(units) at \(at) would be charged to purchases[\(j)] (`\(p.product)`): its status "
            + "`\(p.status.rawValue)` has ended it, but once \(at) is in the past "
        if g.products[Int(read.purchaseProduct[j])].kind == .consumable {
            return start + "its units were held then (a consumable's count from its purchased_at on)"
        }
        let dates = p.expiresAt.map { "its dates (until \($0))" } ?? "its dates (it has no expires_at)"
        return start + "it is within \(dates); give it the instant it ended as its expires_at"
    }

    /// Checks a request to use `amount` of `feature` at `at`: the environment it is evaluated in and
    /// the feature's index, or the error that refuses it — not a single-use feature or credit
    /// system, an amount out of range, another environment than the state's (usage records carry
    /// none: a use recorded while evaluating the other would count in the state's own too), an
    /// instant before a compacted state's ledger — unless it retries a use the state knows by `id`
    /// (a late retry, sent with its first instant: answered from what was recorded).
    static func request(graph: RuleGraph, state: PurchaseState, environment: Environment?, feature: String,
                        amount: Int64, id: String?, at: Instant) throws(EvaluationError) -> (Environment, Int) {
        let env = environment ?? state.environment ?? .live
        guard let f = graph[env].featureNames[feature] else { throw EvaluationError("unknown feature `\(feature)`") }
        let kind = graph[env].features[f].kind
        guard kind == .singleUse || kind == .credits else {
            let what = kind == .boolean ? "a boolean feature" : "a continuous feature (its usage is a level)"
            throw EvaluationError("only a use of a single-use feature or credit system is recorded; "
                                  + "`\(feature)` is \(what)")
        }
        guard amount >= 1, amount <= 1_000_000_000_000_000 else {
            throw EvaluationError("the amount of a use is from 1 to 10^15, not \(amount)")
        }
        // An empty key (an unset variable, `--id "$REQUEST"`) would make every later use a retry.
        guard id?.isEmpty != true else { throw EvaluationError("an idempotency key (`id`) cannot be empty") }
        let own = (state.environment ?? .live).rawValue
        guard env.rawValue == own else {
            throw EvaluationError("the state's environment is \(own): a use recorded while evaluating \(env.rawValue) "
                                  + "would count in \(own) too")
        }
        if let ledger = state.ledger, at < ledger.before {
            // A late retry, sent with its first instant: answered from what was recorded.
            let retry = id.map { id in
                ledger.ids.contains { $0.id.isSameKey(as: id) }
                    || state.usage.contains { $0.id?.isSameKey(as: id) ?? false }
            } ?? false
            guard retry else {
                throw EvaluationError("the state's uses before \(ledger.before) are folded into its ledger: a use at "
                                      + "\(at) can no longer be recorded (record it at \(ledger.before) or later)")
            }
        }
        return (env, f)
    }

    /// A retry of a use folded into the state's ledger (`ledger.ids[k]`): the same feature and amount
    /// is answered allowed and `replayed`, with the check at the ledger's instant (what was left after
    /// the folded uses; the first answer itself is folded away); another use throws.
    static func foldedRetry(of k: Int, graph: RuleGraph, state: PurchaseState, environment: Environment?,
                            feature f: Int, named feature: String,
                            amount: Int64) throws(EvaluationError) -> Decision {
        let ledger = state.ledger!, folded = ledger.ids[k]
        let env = environment ?? state.environment ?? .live
        guard folded.feature == graph[env].features[f].name, folded.kind == .amount(amount) else {
            throw EvaluationError("idempotency key \"\(folded.id)\" was used for \(folded.feature), \(folded.kind), "
                                  + "a use folded into the state's ledger (its latest record at \(folded.at))")
        }
        var answer = try Evaluation(graph: graph, state: state, environment: environment, at: ledger.before)
            .feature(feature, required: amount)
        answer.replayed = true
        answer.decision = .allowed
        answer.via = answer.via ?? .direct
        answer.shortfall = nil
        answer.unlockedBy = nil
        let when = folded.at
        answer.why = Reason(formed: {
            "recorded, and folded into the state's ledger (its latest record at \(when)): a retry, nothing recorded "
                + "again"
        })
        return Decision(result: answer, record: nil, retryOf: nil)
    }

    /// The instant a nanosecond after `t`: a use at `t` is then a past one.
    static func justAfter(_ t: Instant) -> Instant {
        t.nanoseconds == 999_999_999 ? Instant(seconds: t.seconds + 1)
            : Instant(seconds: t.seconds, nanoseconds: t.nanoseconds + 1)
    }

    /// What recording `record` does to the undated records of `members` (`undatedReading`).
    enum UndatedReading: Equatable {
        /// They stay covered wherever the state is read.
        case covered
        /// Read at this instant, the overage grows with the use.
        case uncovered(Instant)
        /// Not settled within `undatedHorizon` readings.
        case unsettled
    }

    /// Whether the undated records of `members` stay covered with `record` recorded, wherever the
    /// state is read later: the overage must not grow, read just after each of the component's
    /// records dated `later`, and from the use on at each instant where what pays for them changes
    /// by itself (a window's end, a lot's lapse, a purchase's end: the results' `valid_until`;
    /// between two such instants and those records the replay is the same, the undated records
    /// last) — until the use has left no trace: in the replay of the dated records, every grant
    /// instance's ledger (a candidate then or not) stands as it would without it, and from then on
    /// the two evolve alike. Fail closed, and bounded: unsettled past `undatedHorizon` later records
    /// or instants read (four evaluations each).
    static func undatedReading(with record: UsageRecord, later: [Instant], graph: RuleGraph, state: PurchaseState,
                               environment: Environment, members: [Int]) throws(EvaluationError) -> UndatedReading {
        let at = record.at!
        var with = state
        with.usage.append(record)
        var dated = state
        dated.usage.removeAll { $0.at == nil }
        var datedWith = dated
        datedWith.usage.append(record)
        let component = graph[environment].componentOf[members[0]]
        func evaluation(_ s: PurchaseState, _ t: Instant) throws(EvaluationError) -> Evaluation {
            try Evaluation(graph: graph, state: s, environment: environment, at: t)
        }
        func read(at t: Instant) throws(EvaluationError) -> (grows: Bool, next: Instant?) {
            try Consumption.read(state, with: with, graph: graph, environment: environment, members: members, at: t)
        }
        /// Whether, at `t`, every ledger of the dated records' replay that may still pay (not a lot
        /// lapsed by then) stands alike without the use.
        func traceless(at t: Instant) throws(EvaluationError) -> Bool {
            guard component >= 0 else { return false }
            func live(_ c: Evaluation) -> ComponentPosition {
                var p = c.replays(ofComponent: component).position
                p.entries.removeAll { $0.expiry.map { $0 <= t } ?? false }
                return p
            }
            let (a, b) = (live(try evaluation(dated, t)), live(try evaluation(datedWith, t)))
            return a.overage == b.overage && a.entries.count == b.entries.count
                && zip(a.entries, b.entries).allSatisfy {
                    $0.instance.isSameInstance(as: $1.instance) && $0.low == $1.low && $0.high == $1.high
                }
        }
        guard later.count <= undatedHorizon else { return .unsettled }
        for instant in later {
            let t = justAfter(instant)
            if try read(at: t).grows { return .uncovered(t) }
        }
        var t = justAfter(at)
        for _ in 0..<undatedHorizon {
            let reading = try read(at: t)
            if reading.grows { return .uncovered(t) }
            guard let next = reading.next, try !traceless(at: t) else { return .covered }
            t = next
        }
        return .unsettled
    }

    /// `state` and `with` (the state with a use) read at `t`: whether the overage of some of
    /// `members` grows with the use, and the next instant at which what pays for them changes by
    /// itself (their results' `valid_until`).
    static func read(_ state: PurchaseState, with: PurchaseState, graph: RuleGraph, environment: Environment,
                     members: [Int], at t: Instant) throws(EvaluationError) -> (grows: Bool, next: Instant?) {
        let a = try Evaluation(graph: graph, state: state, environment: environment, at: t)
        let b = try Evaluation(graph: graph, state: with, environment: environment, at: t)
        var (grows, next) = (false, nil as Instant?)
        for m in members {
            let (x, y) = (a.feature(m, required: 1), b.feature(m, required: 1))
            grows = grows || y.overage ?? 0 > x.overage ?? 0
            next = earliest(earliest(next, x.validUntil), y.validUntil)
        }
        return (grows, next)
    }

    /// The most records dated after a use, and instants after it, `undatedReading` reads.
    static let undatedHorizon = 16

    /// Feature `f` and the features and credit systems its uses may be charged to: its credit
    /// component (§5), or `f` alone.
    static func members(of f: Int, in g: EnvironmentGraph) -> [Int] {
        g.componentOf[f] >= 0 ? g.components[g.componentOf[f]] : [f]
    }

    /// A use that recording a new one would push into overage.
    enum Pushed {
        /// A record dated later.
        case later(Int)
        /// The new use itself, once its instant is read as a past one (§5: a purchase `expired` or
        /// `billing_retry` today was owned then within its dates, so other grants paid).
        case itself
    }

    /// What appending `record` would push into overage when every record is replayed, read from an
    /// instant after all of them (the first later record in time order, or the new use itself), or
    /// nil when it adds no overage.
    static func overLimit(by record: UsageRecord, graph: RuleGraph, state: PurchaseState, environment: Environment,
                          feature f: Int, at: Instant) throws(EvaluationError) -> Pushed? {
        let later = state.usage.indices.filter { (state.usage[$0].at ?? at) > at }
            .sorted { (state.usage[$0].at!, $0) < (state.usage[$1].at!, $1) }
        // Read later, the state can differ from the check's reading only through records dated
        // later, or through purchases whose status ended them before their dates did.
        let ended = state.purchases.contains { $0.status == .expired || $0.status == .billingRetry }
        guard !later.isEmpty || ended else { return nil }
        var with = state
        with.usage.append(record)
        let members = members(of: f, in: graph[environment])
        /// Whether the overage of some member of `f`'s component, read just after `instant` (or at it,
        /// `exactly`), is larger with the record.
        func grows(after instant: Instant, exactly: Bool = false) throws(EvaluationError) -> Bool {
            try read(state, with: with, graph: graph, environment: environment, members: members,
                     at: exactly ? instant : justAfter(instant)).grows
        }
        guard try grows(after: later.last.map { state.usage[$0].at! } ?? at) else {
            // Read at a later record's own instant, that record is a use of now, which a purchase
            // whose status ended it does not pay, while the earlier ones are past uses it paid (§5):
            // the overage there can differ from a nanosecond later's. Each such instant is read too.
            guard ended else { return nil }
            for k in later where try grows(after: state.usage[k].at!, exactly: true) { return .later(k) }
            return nil
        }
        if try grows(after: at) { return .itself }
        // The first later record after whose instant the overage has grown (it only grows with time).
        var (low, high) = (0, later.count - 1)
        while low < high {
            let mid = (low + high) / 2
            if try grows(after: state.usage[later[mid]].at!) { high = mid } else { low = mid + 1 }
        }
        return .later(later[low])
    }

    /// The answer a consumption recorded as `state.usage[record]` got: the check on the state as
    /// it was before that record was appended, at the record's instant (`clock` when it has none).
    public static func recordedAnswer(graph: RuleGraph, state: PurchaseState, environment: Environment?, record: Int,
                                      feature: String, amount: Int64,
                                      clock: Instant) throws(EvaluationError) -> FeatureResult {
        var before = state
        before.usage.removeSubrange(record...)
        // A record dated before a compacted state's ledger is charged at the ledger's instant.
        var at = state.usage[record].at ?? clock
        if let floor = state.ledger?.before, at < floor { at = floor }
        return try Evaluation(graph: graph, state: before, environment: environment, at: at)
            .feature(feature, required: amount)
    }
}

extension Evaluation {
    /// §6 and §5: a use dated at `t` is one of now, and a nanosecond later a past one, which a
    /// purchase whose status ended it may pay then (`chargedLater`); and an undated use, read at
    /// `t` as dated at `t`, is then later than it (a continuous feature's latest reading, the
    /// order uses are charged in). When the state holds both, a metered result may change a
    /// nanosecond after `t` (it had said it would not change at all, and a cache kept its
    /// overage). Nil otherwise. With `feature`, only the uses replayed with it or with a credit
    /// system that can pay for it count (its own, their components'): another feature's use at `t`
    /// changes nothing of its result (a review: its `valid_until` had come out a nanosecond after
    /// `t`).
    func pastReadingChange(of feature: Int? = nil) -> Instant? {
        guard watchesUsesTurningPast else { return nil }
        // A first look at the dates alone (most states have no use at `t`); then only the uses
        // that count: a retry or a record naming nothing is none.
        guard state.usage.contains(where: { $0.at == at }) else { return nil }
        let counts = tables.usageFeatures(in: graph)
        func replayedWith(_ g: Int32) -> Bool {
            guard let feature, Int(g) != feature else { return true }
            let c = graph.componentOf[Int(g)]
            return c >= 0 && (c == graph.componentOf[feature]
                || graph.features[feature].creditRoutes.contains { graph.componentOf[$0.system] == c })
        }
        var atT = false, undated = false
        for (k, record) in state.usage.enumerated() where counts[k] >= 0 && replayedWith(counts[k]) {
            if record.at == at { atT = true } else if record.at == nil { undated = true }
        }
        guard atT else { return nil }
        if undated { return Consumption.justAfter(at) }
        let products = graph.products, product = purchaseProduct
        let charged = state.purchases.withUnsafeBufferPointer { purchases in
            purchases.indices.contains { j in
                Consumption.chargedLater(purchases.baseAddress! + j, product: Int(product[j]), products: products,
                                         at: at)
            }
        }
        return charged ? Consumption.justAfter(at) : nil
    }
}

extension UsageRecord.Kind: CustomStringConvertible {
    /// `amount 3`, `level 2`.
    public var description: String {
        switch self {
        case .amount(let n): "amount \(n)"
        case .level(let n): "level \(n)"
        }
    }
}
