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

    private struct Key: Hashable {
        var variable: Int32, low: Int32, high: Int32
    }

    private struct Pair: Hashable {
        var a: Int32, b: Int32
    }

    private var variables: [Int32] = [Int32.max, Int32.max]
    private var lows: [Int32] = [0, 1]
    private var highs: [Int32] = [0, 1]
    private var unique: [Key: Int32] = [:]
    private var andMemo: [Pair: Int32] = [:]
    private var orMemo: [Pair: Int32] = [:]
    private var notMemo: [Int32: Int32] = [:]

    /// The most nodes the store may hold.
    let capacity: Int
    /// The node count the task under way may reach, and the steps it has left.
    private var nodeLimit: Int
    private var stepsLeft = Int.max
    private(set) var exhausted = false
    /// Recursion depth of the operation under way; bounded so no diagram can overflow the stack.
    private var depth = 0
    static let maxDepth = 2_000

    init(capacity: Int = 2_000_000) {
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
        for id in checkpoint..<variables.count {
            unique[Key(variable: variables[id], low: lows[id], high: highs[id])] = nil
        }
        variables.removeSubrange(checkpoint...)
        lows.removeSubrange(checkpoint...)
        highs.removeSubrange(checkpoint...)
        andMemo = [:]
        orMemo = [:]
        notMemo = [:]
    }

    private mutating func node(_ v: Int32, _ low: Int32, _ high: Int32) -> Int32 {
        if low == high { return low }
        if exhausted { return BDD.false }
        let key = Key(variable: v, low: low, high: high)
        if let id = unique[key] { return id }
        if variables.count >= nodeLimit {
            exhausted = true
            return BDD.false
        }
        let id = Int32(variables.count)
        variables.append(v)
        lows.append(low)
        highs.append(high)
        unique[key] = id
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
        if let r = notMemo[a] { return r }
        guard enter() else { return BDD.false }
        defer { depth -= 1 }
        let r = node(variables[Int(a)], not(lows[Int(a)]), not(highs[Int(a)]))
        if !exhausted { notMemo[a] = r }
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
        let key = Pair(a: min(a, b), b: max(a, b))
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
