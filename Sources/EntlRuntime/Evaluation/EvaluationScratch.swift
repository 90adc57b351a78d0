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
/// state (`EvaluationScratchTests`). Tables are taken back only when nothing else holds them (a
/// result or a copy of the evaluation kept elsewhere keeps them to itself). A scratch cannot be
/// copied: two copies would fill the same tables.
public struct EvaluationScratch: ~Copyable, Sendable {
    /// nil: none yet, or lent to an evaluation that was not given back.
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
            let tables = kept()
            yield &tables.state
        }
    }

    /// The kept tables, or new ones.
    private mutating func kept() -> EvaluationTables {
        if let tables { return tables }
        let made = EvaluationTables(state: PurchaseState())
        tables = made
        return made
    }

    /// Empties the state and decodes `bytes` into it, as `PurchaseState(json:options:)` does.
    public mutating func read(json bytes: ArraySlice<UInt8>, options: StateDecodingOptions = .default)
        throws(StateError)
    {
        let tables = kept()
        tables.state.clear(keepingPlaces: true)
        try tables.state.read(json: bytes, options: options, order: &order)
    }

    /// The evaluation of `state`, as `Evaluation(graph:state:environment:at:…)` makes it, holding
    /// the tables until `recycle`. When it throws, the scratch keeps its tables.
    public mutating func evaluation(graph: RuleGraph, environment: Environment? = nil, at: Instant,
                                    explain: Bool = false, unlock: Bool = false, strict: Bool = false)
        throws(EvaluationError) -> Evaluation
    {
        let lent = kept()
        tables = nil
        do {
            return try Evaluation(graph: graph, tables: lent, environment: environment, at: at, explain: explain,
                                  unlock: unlock, strict: strict)
        } catch {
            tables = lent
            throw error
        }
    }

    /// Takes back the tables of `evaluation`, made by `evaluation(…)`, when nothing else holds them,
    /// the scratch holds none (a state read since is kept) and they are not much larger than a
    /// line usually needs (one very large state does not pin its memory for the rest of a run).
    public mutating func recycle(_ evaluation: consuming Evaluation) {
        var lent = evaluation.tables
        _ = consume evaluation
        if tables == nil, isKnownUniquelyReferenced(&lent), lent.keptBytes <= Self.keptBytesLimit { tables = lent }
    }

    /// The most memory tables taken back may keep: 1 MiB (some thousands of purchases or usage
    /// records; a batch's usual line needs a few hundred bytes).
    static let keptBytesLimit = 1 << 20
}
