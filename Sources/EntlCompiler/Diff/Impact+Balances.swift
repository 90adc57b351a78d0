import EntlRuntime

extension Impact {
    /// How one metered feature's (or credit system's) balances move from OLD to NEW over the
    /// customers: the balance is the certain balance at the state's instant (what `eval` reports),
    /// and a side where the feature does not exist or is boolean counts as 0. Changes between two
    /// numbers are counted as drops or rises, summed and their extremes kept; a change to or from
    /// `unlimited` is no number, so it is counted apart (`becameUnlimited`, `lostUnlimited`) and
    /// is in none of the others. Swapping OLD and NEW swaps drops and rises, the two extremes and
    /// the two unlimited groups, and negates the total.
    public struct Balances: Sendable {
        /// A balance on one side.
        enum Level: Equatable {
            case number(Int64)
            case unlimited

            init(_ result: FeatureResult?) {
                guard let result, result.kind.isMetered else { self = .number(0); return }
                self = result.unlimited ? .unlimited : .number(result.balance ?? 0)
            }
        }

        /// One customer's change of balance.
        public struct Change: Sendable, Equatable {
            /// NEW − OLD (saturating).
            public var amount: Int64
            public var old: Int64, new: Int64
            /// The state's `customer`, if it has one, and its line.
            public var customer: String?
            public var line: Int

            public init(amount: Int64, old: Int64, new: Int64, customer: String?, line: Int) {
                (self.amount, self.old, self.new, self.customer, self.line) = (amount, old, new, customer, line)
            }
        }

        /// Customers whose balance is lower in NEW, and higher.
        public internal(set) var drops = 0, rises = 0
        /// The sum of every change, NEW − OLD (saturating at the bounds of a 64-bit integer).
        public internal(set) var total: Int64 = 0
        /// The largest drop and the largest rise; of equal ones, the first in the input.
        public internal(set) var largestDrop: Change?, largestRise: Change?
        /// Customers whose balance was a number and is unlimited in NEW, and the other way round.
        public internal(set) var becameUnlimited = Group(), lostUnlimited = Group()

        /// Whether no balance moved.
        public var isEmpty: Bool { drops == 0 && rises == 0 && becameUnlimited.count == 0 && lostUnlimited.count == 0 }

        mutating func add(_ old: Level, _ new: Level, _ customer: Customer) {
            switch (old, new) {
            case (.number, .unlimited): becameUnlimited.add(customer.name)
            case (.unlimited, .number): lostUnlimited.add(customer.name)
            case (.number(let o), .number(let n)) where o != n:
                let change = Change(amount: n.subtractingSaturating(o), old: o, new: n, customer: customer.id,
                                    line: customer.line)
                total = total.addingSaturating(change.amount)
                if change.amount < 0 {
                    drops += 1
                    if change.amount < largestDrop?.amount ?? 0 { largestDrop = change }
                } else {
                    rises += 1
                    if change.amount > largestRise?.amount ?? 0 { largestRise = change }
                }
            default:
                break
            }
        }

        /// Adds what was measured on later states: an equal extreme keeps the earlier customer.
        mutating func merge(_ other: Balances) {
            drops += other.drops
            rises += other.rises
            total = total.addingSaturating(other.total)
            if let d = other.largestDrop, d.amount < largestDrop?.amount ?? 0 { largestDrop = d }
            if let r = other.largestRise, r.amount > largestRise?.amount ?? 0 { largestRise = r }
            becameUnlimited.merge(other.becameUnlimited)
            lostUnlimited.merge(other.lostUnlimited)
        }
    }
}
