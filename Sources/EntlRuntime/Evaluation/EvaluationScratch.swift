/// What a program evaluating state after state (each block of `entlc eval --states`) keeps from each
/// evaluation for the next: its tables, with their one allocation, and its state, whose arrays are
/// emptied and filled again rather than made again. A line then allocates nothing of its own for
/// the state's purchases or the evaluation's tables, and frees nothing.
///
///     try scratch.read(json: line, options: options)  // into the kept state, emptied first
///     let evaluation = try scratch.evaluation(graph: graph, environment: nil, at: at, …)
///     … queries …
///     scratch.recycle(consume evaluation)  // `consume`: a copy left behind would keep the tables
///
/// An evaluation made this way is the evaluation `Evaluation(graph:state:…)` makes of the same
/// state (`EvaluationScratchTests`). The scratch and the evaluation share the tables; a state is
/// read into them again only when nothing else holds them (a result or a copy of the evaluation
/// kept elsewhere keeps them to itself, and the scratch makes new ones). Sharing rather than
/// lending them means no reference changes hands on each line: the evaluation's is its only
/// retain and release (an atomic operation each, a cost that shows in a batch's time). A scratch
/// cannot be copied: two copies would fill the same tables.
public struct EvaluationScratch: ~Copyable, Sendable {
    /// The tables of the state read last: held by the scratch and by the evaluation made of them
    /// until it ends; nil before the first use.
    private var tables: EvaluationTables?
    /// The order of keys in the states read so far: the next state's are expected in it.
    private var order = KeyOrder()

    public init() {}

    /// The state the next evaluation reads (read into by `read`).
    public var state: PurchaseState {
        _read {
            if let tables { yield tables.state } else { yield PurchaseState() }
        }
        _modify {
            yield &owned().state
        }
    }

    /// The tables, held by nothing else: new ones at first, a copy (the state read included) while
    /// an evaluation still holds them.
    private mutating func owned() -> EvaluationTables {
        if tables == nil {
            tables = EvaluationTables(state: PurchaseState())
        } else if !isKnownUniquelyReferenced(&tables!) {
            tables = EvaluationTables(state: tables.unsafelyUnwrapped.state)
        }
        return tables.unsafelyUnwrapped
    }

    /// Empties the state and decodes `bytes` into it, as `PurchaseState(json:options:)` does. The
    /// tables are read into again when nothing else holds them and they are not much larger than
    /// a line usually needs (one very large state does not pin its memory for the rest of a run).
    public mutating func read(json bytes: ArraySlice<UInt8>, options: StateDecodingOptions = .default)
        throws(StateError)
    {
        try bytes.withUnsafeBufferPointer { (bytes) throws(StateError) in try read(json: bytes, options: options) }
    }

    /// `read(json:options:)` of bytes that stay valid while it runs (a batch's line in its block).
    package mutating func read(json bytes: UnsafeBufferPointer<UInt8>, options: StateDecodingOptions = .default)
        throws(StateError)
    {
        if tables == nil || !isKnownUniquelyReferenced(&tables!) || tables!.keptBytes > Self.keptBytesLimit {
            tables = EvaluationTables(state: PurchaseState())
        }
        // Through the stored reference, not a copy of it (a copy is a retain and a release).
        tables!.state.clear(keepingPlaces: true)
        try tables!.state.read(json: bytes, options: options, order: &order)
    }

    /// The evaluation of `state`, as `Evaluation(graph:state:environment:at:…)` makes it, sharing
    /// the tables until it ends (`recycle`). When it throws, the scratch keeps the state read.
    public mutating func evaluation(graph: RuleGraph, environment: Environment? = nil, at: Instant,
                                    explain: Bool = false, unlock: Bool = false, strict: Bool = false)
        throws(EvaluationError) -> Evaluation
    {
        let evaluation = try Evaluation(graph: graph, tables: owned(), environment: environment, at: at,
                                        explain: explain, unlock: unlock)
        if strict { try evaluation.refuseRuleSetWarnings() }
        return evaluation
    }

    /// Ends `evaluation`, made by `evaluation(…)`: its tables are the scratch's alone again (unless
    /// a copy of it or a result is kept elsewhere). A scratch that holds none takes them. Tables
    /// grown past `keptBytesLimit` by a very large state are let go now, not kept until the next
    /// read (a batch's block may not be read into again for a long while).
    public mutating func recycle(_ evaluation: consuming Evaluation) {
        if tables == nil { tables = evaluation.tables }
        _ = consume evaluation
        if tables != nil, tables!.keptBytes > Self.keptBytesLimit { tables = nil }
    }

    /// The most memory tables read into again may keep: 1 MiB (some thousands of purchases or usage
    /// records; a batch's usual line needs a few hundred bytes).
    static let keptBytesLimit = 1 << 20
}
