/// docs/state.md `ledger`: what `entlc state compact` folded the usage records dated before
/// `before` into — where every grant instance's ledger stood then (its window, what was left,
/// carried, used and overdrawn), the overage of the folded uses, and the ids of the folded uses a
/// late retry may still repeat. Evaluated with the rules it was made with, a compacted state gives
/// the results of its full history at every instant from `before` on.
public struct LedgerSnapshot: Sendable, Equatable {
    /// The uses dated before it are folded; the state answers at `before` and later.
    public var before: Instant
    /// The SHA-256 of the rules it was made with (`EnvironmentGraph.rulesDigest`): with other
    /// rules, its positions may mean something else (a warning).
    public var rules: String
    /// Each grant instance's ledger in the replay over the grants that are certain (`low`).
    public var grants: [Entry] = []
    /// The instances whose ledger differs in the replay that also counts purchases of unknown
    /// status (`high`); the others stand there as in `grants`.
    public var withUnknown: [Entry] = []
    /// What no grant or credit covered of the folded uses, per feature or credit system (0 unlisted).
    public var overage: [Overage] = []
    /// The folded uses whose ids are still remembered.
    public var ids: [FoldedUse] = []

    /// One grant instance (the grant and what is behind it, docs/ledger.md) and its ledger.
    public struct Entry: Sendable, Equatable {
        /// The feature or credit system the grant gives.
        public var feature: String
        /// The grant's place among the feature's grants in the rules (declaration order); nil
        /// for a grant to this customer (`stateGrant` names it).
        public var grant: Int?
        /// The purchase behind it.
        public var purchase: PurchaseKey?
        /// The product whose override is behind it.
        public var override: String?
        /// The state grant: the grant itself (no `grant`), or the one an entitlement is active
        /// through; by its `id`, else its place (`grants[3]`).
        public var stateGrant: String?
        public var position: Position
    }

    /// A purchase by what stays when a tracker rewrites it (a renewal moves `period_start` and
    /// `expires_at`, not these): its product as written, its store and `purchased_at`, and which
    /// of the purchases alike it is (`ordinal`, 0 the first in state order).
    public struct PurchaseKey: Sendable, Equatable {
        public var product: String
        public var store: String?
        public var purchasedAt: Instant?
        public var ordinal: Int = 0

        /// Whether `p` is a purchase alike (the ordinal aside).
        public func matches(_ p: Purchase) -> Bool {
            p.product == product && p.store == store && p.purchasedAt == purchasedAt
        }
    }

    /// Where a ledger stands: its current window (none for a lifetime allowance or a lot), what is
    /// left of it, what was carried into it, used from it and overdrawn on it.
    public struct Position: Sendable, Equatable {
        public var windowStart: Instant?
        public var windowEnd: Instant?
        public var balance: Int64
        public var carried: Int64 = 0
        public var used: Int64 = 0
        public var overdrawn: Int64 = 0
    }

    public struct Overage: Sendable, Equatable {
        public var feature: String
        public var amount: Int64
    }

    /// A folded record that carried an id (a use, or a level): a record repeating the id is a
    /// retry (the same feature and amount or level) or a conflict, as if the folded record were
    /// still in `usage`, ahead of every record.
    public struct FoldedUse: Sendable, Equatable {
        public var id: String
        /// The feature or credit system it named, by its name.
        public var feature: String
        public var kind: UsageRecord.Kind
        /// The instant of the latest folded record with the id: the use's, or a retry's (the id is
        /// remembered for a day from then).
        public var at: Instant
    }

    /// How long the ids of folded uses are remembered before `before`, as payment APIs remember
    /// idempotency keys: a day.
    public static let idMemorySeconds: Int64 = 86_400
}

// MARK: - JSON

extension LedgerSnapshot {
    /// The snapshot as state JSON (docs/state.md `ledger`): one line, or, when `indent` (the
    /// indentation of the state's members), one member per line and one entry per line.
    public func json(indent: [UInt8]? = nil, newline: [UInt8] = [0x0A]) -> [UInt8] {
        var members: [(String, [UInt8])] = [("before", quoted(before)), ("rules", JSONValue.string(rules).bytes)]
        let pretty = indent != nil
        func list(_ items: [[UInt8]]) -> [UInt8] {
            guard let indent, !items.isEmpty else {
                return [UInt8(ascii: "[")] + items.joined(separator: [UInt8(ascii: ","), 0x20]) + [UInt8(ascii: "]")]
            }
            let inner = newline + indent + indent + indent
            return [UInt8(ascii: "[")] + items.map { inner + $0 }.joined(separator: [UInt8(ascii: ",")]) + newline
                + indent + indent + [UInt8(ascii: "]")]
        }
        members.append(("grants", list(grants.map(\.json))))
        if !withUnknown.isEmpty { members.append(("with_unknown", list(withUnknown.map(\.json)))) }
        if !overage.isEmpty {
            members.append(("overage", JSONValue.object(overage.map { ($0.feature, .int($0.amount)) }).spaced))
        }
        if !ids.isEmpty { members.append(("ids", list(ids.map(\.json)))) }
        guard let indent, pretty else {
            return [UInt8(ascii: "{")] + members.map { JSONValue.string($0.0).bytes + Array(": ".utf8) + $0.1 }
                .joined(separator: [UInt8(ascii: ","), 0x20]) + [UInt8(ascii: "}")]
        }
        let lines = members.map { newline + indent + indent + JSONValue.string($0.0).bytes + Array(": ".utf8) + $0.1 }
        return [UInt8(ascii: "{")] + lines.joined(separator: [UInt8(ascii: ",")]) + newline + indent
            + [UInt8(ascii: "}")]
    }
}

extension LedgerSnapshot.Entry {
    /// `{"feature": "api_calls", "grant": 0, "purchase": {…}, "window_start": …, "balance": 700, …}`.
    var json: [UInt8] {
        var members: [(String, JSONValue)] = [("feature", .string(feature))]
        if let grant { members.append(("grant", .int(Int64(grant)))) }
        if let purchase {
            var key: [(String, JSONValue)] = [("product", .string(purchase.product))]
            if let store = purchase.store { key.append(("store", .string(store))) }
            if let bought = purchase.purchasedAt { key.append(("purchased_at", .string(bought.description))) }
            if purchase.ordinal != 0 { key.append(("ordinal", .int(Int64(purchase.ordinal)))) }
            members.append(("purchase", .object(key)))
        }
        if let override { members.append(("override", .string(override))) }
        if let stateGrant { members.append(("state_grant", .string(stateGrant))) }
        if let start = position.windowStart { members.append(("window_start", .string(start.description))) }
        if let end = position.windowEnd { members.append(("window_end", .string(end.description))) }
        members += [("balance", .int(position.balance)), ("carried", .int(position.carried)),
                    ("used", .int(position.used)), ("overdrawn", .int(position.overdrawn))]
        return JSONValue.object(members).spaced
    }
}

extension LedgerSnapshot.FoldedUse {
    var json: [UInt8] {
        let value: (String, JSONValue) = switch kind {
        case .amount(let n): ("amount", .int(n))
        case .level(let n): ("level", .int(n))
        }
        return JSONValue.object([("id", .string(id)), ("feature", .string(feature)), value,
                                 ("at", .string(at.description))]).spaced
    }
}

private func quoted(_ instant: Instant) -> [UInt8] { JSONValue.string(instant.description).bytes }

extension JSONValue {
    /// Compact bytes.
    fileprivate var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out, indent: false, level: 0)
        return out
    }

    /// On one line with a space after each colon and comma: `{"a": 1, "b": [1, 2]}`.
    fileprivate var spaced: [UInt8] {
        switch self {
        case .object(let members):
            let inner = members.map { JSONValue.string($0.key).bytes + Array(": ".utf8) + $0.value.spaced }
            return [UInt8(ascii: "{")] + inner.joined(separator: [UInt8(ascii: ","), 0x20]) + [UInt8(ascii: "}")]
        case .array(let items):
            return [UInt8(ascii: "[")] + items.map(\.spaced).joined(separator: [UInt8(ascii: ","), 0x20])
                + [UInt8(ascii: "]")]
        default:
            return bytes
        }
    }
}
