/// A store of reduced ordered binary decision diagrams: the canonical form in which the linter
/// decides whether constraints are impossible, always true, redundant or equivalent.
///
/// Nodes are `Int32` ids; `BDD.false` and `BDD.true` are the terminals. Two functions are equal
/// exactly when their ids are equal (the unique table makes the form canonical). Operations are
/// memoised.
///
/// Work is bounded three ways: the store holds at most `capacity` nodes; recursion is at most
/// `maxDepth` deep; and a *task* (`begin` … `end`) may add at most its own number of nodes and
/// take at most its own number of steps (memo misses). Past any bound `exhausted` is set and the
/// results of the operation under way are meaningless. The store stays sound all the same: a
/// result computed once the budget is spent is never memoised and no node is made, and the
/// nodes a spent task made are dropped, so the next task starts on a canonical store with room.
struct BDD {
    static let `false`: Int32 = 0
    static let `true`: Int32 = 1

    private var variables: [Int32] = [Int32.max, Int32.max]
    private var lows: [Int32] = [0, 1]
    private var highs: [Int32] = [0, 1]
    /// The unique table: node ids by (variable, low, high), open addressing over the node arrays'
    /// own triples (a `Dictionary` hashed each key with a seeded `Hasher`: most of `check`'s time
    /// on large rule sets).
    private var unique = [UInt64](repeating: BDD.empty, count: 1_024)
    /// Slots not empty: live ids and `removed` marks.
    private var uniqueUsed = 0
    /// Entries no node has: node ids are below 2^31.
    private static let empty = UInt64.max, removed = UInt64.max - 1
    private var andMemo = Memo(), orMemo = Memo(), notMemo = Memo()

    /// The most nodes the store may hold.
    let capacity: Int
    /// The node count the task under way may reach, and the steps it has left.
    private var nodeLimit: Int
    private var stepsLeft = Int.max
    private(set) var exhausted = false
    /// Recursion depth of the operation under way; bounded so no diagram can overflow the stack.
    private var depth = 0
    static let maxDepth = 2_000

    static let defaultCapacity = 2_000_000

    init(capacity: Int = BDD.defaultCapacity) {
        self.capacity = capacity
        nodeLimit = capacity
    }

    var nodeCount: Int { variables.count }

    /// Starts a task that may add `nodes` nodes and take `steps` steps, with `exhausted` cleared.
    mutating func begin(nodes: Int, steps: Int) {
        exhausted = false
        checkpoint = variables.count
        nodeLimit = min(capacity, checkpoint + nodes)
        stepsLeft = steps
    }

    /// Ends the task: the store's own bounds apply again. Whether it stayed within its budget.
    /// The nodes it made are dropped when it did not, or when `keep` is false (a search whose
    /// diagrams nobody keeps), so a spent task costs no room in the store: ids from before
    /// `begin` stay valid, later ones do not.
    mutating func end(keep: Bool) -> Bool {
        let within = !exhausted
        if !within || !keep { rollBack() }
        nodeLimit = capacity
        stepsLeft = .max
        exhausted = false
        return within
    }

    private var checkpoint = 0

    /// Forgets the nodes made since `checkpoint`, and the memos (which may name them).
    private mutating func rollBack() {
        guard variables.count > checkpoint else { return }
        // A few dropped nodes are marked removed in the unique table; more than stay, and the
        // table is rebuilt from those that stay.
        let rebuild = variables.count - checkpoint > checkpoint
        if !rebuild {
            for id in checkpoint..<variables.count {
                unique[slot(variables[id], lows[id], highs[id]).index] = BDD.removed
            }
        }
        variables.removeSubrange(checkpoint...)
        lows.removeSubrange(checkpoint...)
        highs.removeSubrange(checkpoint...)
        if rebuild { rehashUnique() }
        andMemo.removeAll()
        orMemo.removeAll()
        notMemo.removeAll()
    }

    /// The unique table's slot of node (v, low, high) when it is there, else the slot it would take,
    /// and the entry that names it there: its id under the high half of its hash (compared first,
    /// so a probe reads the node arrays only for a likely match).
    private func slot(_ v: Int32, _ low: Int32, _ high: Int32) -> (index: Int, found: Bool, tag: UInt64) {
        let mask = unique.count - 1
        let h = Memo.hash(Memo.key(low, high) ^ UInt64(UInt32(bitPattern: v)) &* 0x9E37_79B9_7F4A_7C15)
        let tag = UInt64(truncatingIfNeeded: h) & 0xFFFF_FFFF_0000_0000
        var i = h & mask
        var free = -1
        while true {
            let entry = unique[i]
            if entry == BDD.empty { return (free >= 0 ? free : i, false, tag) }
            if entry == BDD.removed {
                if free < 0 { free = i }
            } else if entry & 0xFFFF_FFFF_0000_0000 == tag {
                let id = Int(entry & 0xFFFF_FFFF)
                if variables[id] == v, lows[id] == low, highs[id] == high { return (i, true, tag) }
            }
            i = (i + 1) & mask
        }
    }

    /// Rebuilds the unique table without its `removed` marks, at most a quarter full.
    private mutating func rehashUnique() {
        let live = variables.count - 2
        var size = 1_024
        while live * 4 >= size { size *= 2 }
        unique = [UInt64](repeating: BDD.empty, count: size)
        uniqueUsed = live
        for id in 2..<variables.count {
            let (i, _, tag) = slot(variables[id], lows[id], highs[id])
            unique[i] = tag | UInt64(id)
        }
    }

    private mutating func node(_ v: Int32, _ low: Int32, _ high: Int32) -> Int32 {
        if low == high { return low }
        if exhausted { return BDD.false }
        var (i, found, tag) = slot(v, low, high)
        if found { return Int32(truncatingIfNeeded: unique[i]) }
        if variables.count >= nodeLimit {
            exhausted = true
            return BDD.false
        }
        if unique[i] == BDD.empty {
            if (uniqueUsed + 1) * 8 > unique.count * 3 {
                rehashUnique()
                i = slot(v, low, high).index
            }
            uniqueUsed += 1
        }
        let id = Int32(variables.count)
        variables.append(v)
        lows.append(low)
        highs.append(high)
        unique[i] = tag | UInt64(id)
        return id
    }

    /// The function that is true exactly when variable `v` is.
    mutating func variable(_ v: Int) -> Int32 {
        node(Int32(v), BDD.false, BDD.true)
    }

    mutating func not(_ a: Int32) -> Int32 {
        if a == BDD.false { return BDD.true }
        if a == BDD.true { return BDD.false }
        if exhausted { return BDD.false }
        if let r = notMemo[Memo.key(a, a)] { return r }
        guard enter() else { return BDD.false }
        defer { depth -= 1 }
        let r = node(variables[Int(a)], not(lows[Int(a)]), not(highs[Int(a)]))
        if !exhausted { notMemo[Memo.key(a, a)] = r }
        return r
    }

    mutating func and(_ a: Int32, _ b: Int32) -> Int32 { apply(isAnd: true, a, b) }

    mutating func or(_ a: Int32, _ b: Int32) -> Int32 { apply(isAnd: false, a, b) }

    /// `and` or `or`: the dual terminal cases, then Shannon expansion on the top variable, memoized.
    private mutating func apply(isAnd: Bool, _ a: Int32, _ b: Int32) -> Int32 {
        // `zero` decides the result alone (false for `and`), `one` leaves the other operand.
        let (zero, one) = isAnd ? (BDD.false, BDD.true) : (BDD.true, BDD.false)
        if a == zero || b == zero { return zero }
        if a == one { return b }
        if b == one || a == b { return a }
        if exhausted { return BDD.false }
        let key = Memo.key(min(a, b), max(a, b))
        if let r = isAnd ? andMemo[key] : orMemo[key] { return r }
        guard enter() else { return BDD.false }
        defer { depth -= 1 }
        let (v, al, ah, bl, bh) = split(a, b)
        let r = node(v, apply(isAnd: isAnd, al, bl), apply(isAnd: isAnd, ah, bh))
        if !exhausted {
            if isAnd { andMemo[key] = r } else { orMemo[key] = r }
        }
        return r
    }

    /// Counts `steps` of a lint's own work on diagrams (arrays of them rebuilt) against the task's
    /// steps, as if they were operations: work that is not an operation is bounded too.
    mutating func spend(_ steps: Int) {
        stepsLeft -= steps
        if stepsLeft < 0 { exhausted = true }
    }

    /// One step of an operation: false (and `exhausted`) past the depth bound or the task's steps.
    private mutating func enter() -> Bool {
        depth += 1
        stepsLeft -= 1
        if depth > BDD.maxDepth || stepsLeft < 0 {
            depth -= 1
            exhausted = true
            return false
        }
        return true
    }

    /// The top variable of `a` and `b` and both cofactors of each.
    private func split(_ a: Int32, _ b: Int32) -> (Int32, Int32, Int32, Int32, Int32) {
        let va = variables[Int(a)], vb = variables[Int(b)]
        let v = min(va, vb)
        let (al, ah) = va == v ? (lows[Int(a)], highs[Int(a)]) : (a, a)
        let (bl, bh) = vb == v ? (lows[Int(b)], highs[Int(b)]) : (b, b)
        return (v, al, ah, bl, bh)
    }

    /// The variables fixed along one path from `a` to `true`, preferring `false` at each node
    /// (so few variables are true), or nil when `a` is `false`.
    func satisfyingPath(_ a: Int32) -> [(variable: Int, value: Bool)]? {
        guard a != BDD.false else { return nil }
        var path: [(variable: Int, value: Bool)] = []
        var n = a
        while n > BDD.true {
            let low = lows[Int(n)]
            let takeLow = low != BDD.false
            path.append((Int(variables[Int(n)]), !takeLow))
            n = takeLow ? low : highs[Int(n)]
        }
        return path
    }

    /// The variables `a` depends on (iterative: no recursion on diagram size).
    func support(_ a: Int32) -> Set<Int> {
        var seen: Set<Int32> = []
        var out: Set<Int> = []
        var stack = [a]
        while let n = stack.popLast() {
            guard n > BDD.true, seen.insert(n).inserted else { continue }
            out.insert(Int(variables[Int(n)]))
            stack.append(lows[Int(n)])
            stack.append(highs[Int(n)])
        }
        return out
    }
}

extension BDD {
    /// A memo of an operation: results by their operands' ids (two, packed in one word), open
    /// addressing. Forgotten whole on a roll-back.
    fileprivate struct Memo {
        private var keys = [UInt64](repeating: Memo.none, count: 256)
        private var values = [Int32](repeating: 0, count: 256)
        private var count = 0
        /// No key: ids are never negative.
        private static let none = UInt64.max

        static func key(_ a: Int32, _ b: Int32) -> UInt64 {
            UInt64(UInt32(bitPattern: a)) << 32 | UInt64(UInt32(bitPattern: b))
        }

        /// A word mixed into a slot number (the multiply–xorshift of SplitMix64).
        static func hash(_ word: UInt64) -> Int {
            var h = word &+ 0x9E37_79B9_7F4A_7C15
            h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
            h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: h ^ (h >> 31))
        }

        private func slot(_ key: UInt64) -> Int {
            let mask = keys.count - 1
            var i = Memo.hash(key) & mask
            while keys[i] != key, keys[i] != Memo.none { i = (i + 1) & mask }
            return i
        }

        subscript(key: UInt64) -> Int32? {
            get {
                let i = slot(key)
                return keys[i] == key ? values[i] : nil
            }
            set {
                // Only ever set (a memo is not edited), and never to nil.
                guard let newValue else { return }
                var i = slot(key)
                if keys[i] == Memo.none {
                    if (count + 1) * 2 > keys.count {
                        grow()
                        i = slot(key)
                    }
                    count += 1
                }
                keys[i] = key
                values[i] = newValue
            }
        }

        private mutating func grow() {
            let (oldKeys, oldValues) = (keys, values)
            keys = [UInt64](repeating: Memo.none, count: oldKeys.count * 2)
            values = [Int32](repeating: 0, count: oldKeys.count * 2)
            for (k, v) in zip(oldKeys, oldValues) where k != Memo.none {
                let i = slot(k)
                keys[i] = k
                values[i] = v
            }
        }

        mutating func removeAll() {
            guard count > 0 else { return }
            if keys.count > 4_096 {
                self = Memo()
            } else {
                for i in keys.indices { keys[i] = Memo.none }
                count = 0
            }
        }
    }
}
