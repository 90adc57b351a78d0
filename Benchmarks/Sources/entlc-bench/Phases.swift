import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation

/// Where a batch line's time goes, in-process (no process start, no compiling, no file reading):
/// the lines of STATES in memory, each taken through the batch's steps, cumulatively — decoding
/// (with the rule set's names, as `eval --states` decodes), building the evaluation, answering the
/// query, writing the result line — and, as a floor, touching each byte of the line once.
/// Nanoseconds a line, the median of RUNS passes over the file.
///
///   entlc-bench phases RULES STATES.jsonl (--entitlement NAME | --feature NAME) [--runs N]
func phases(_ args: [String]) {
    guard args.count >= 4, let source = try? String(contentsOfFile: args[1], encoding: .utf8),
          let data = FileManager.default.contents(atPath: args[2])
    else { fail("phases RULES STATES.jsonl (--entitlement NAME | --feature NAME) [--runs N]") }
    guard let graph = Compiler.compile([SourceFile(path: args[1], text: source)], lint: false).graph else {
        fail("\(args[1]) does not compile")
    }
    let entitlement = option("--entitlement", in: args), feature = option("--feature", in: args)
    guard (entitlement == nil) != (feature == nil) else { fail("phases: give --entitlement or --feature") }
    let runs = option("--runs", in: args).flatMap(Int.init) ?? 7
    let bytes = [UInt8](data)
    var lines: [Range<Int>] = []
    var start = 0
    for (i, b) in bytes.enumerated() where b == 0x0A {
        if i > start { lines.append(start..<i) }
        start = i + 1
    }
    if start < bytes.count { lines.append(start..<bytes.count) }
    let options = StateDecodingOptions(names: StateNames(graph))
    let at = Instant(rfc3339: "2026-11-22T12:00:00Z")!
    var sink = 0

    func perLine(_ body: (ArraySlice<UInt8>) -> Void) -> Double {
        measure(runs: runs) { for r in lines { body(bytes[r]) } } / Double(lines.count) * 1e9
    }
    func evaluate(_ line: ArraySlice<UInt8>) -> Evaluation? {
        guard let state = try? PurchaseState(json: line, options: options) else { return nil }
        return try? Evaluation(graph: graph, state: state, at: at)
    }
    /// The query answered as the batch answers it: one result, in no array.
    func answer(_ e: Evaluation) -> Decision? {
        if let entitlement { return (try? e.entitlement(entitlement))?.decision }
        return (try? e.feature(feature!))?.decision
    }
    let touch = perLine { line in line.withUnsafeBufferPointer { for b in $0 { sink &+= Int(b) } } }
    let decode = perLine { line in sink &+= (try? PurchaseState(json: line, options: options))?.purchases.count ?? 0 }
    let build = perLine { line in sink &+= evaluate(line)?.state.usage.count ?? 0 }
    let answered = perLine { line in sink &+= evaluate(line).flatMap(answer) == .allowed ? 1 : 0 }
    var out = JSONBytes(capacity: 1 << 20)
    let written = perLine { line in
        guard let e = evaluate(line) else { return }
        // As the batch writes a query's one result: no array, no `EvaluationResult`.
        if let entitlement, let r = try? e.entitlement(entitlement) {
            e.writeJSONLine(r, warnings: e.warnings, into: &out)
        } else if let feature, let r = try? e.feature(feature) {
            e.writeJSONLine(r, warnings: e.warnings, into: &out)
        }
        if out.count > 1 << 19 { out.removeAll() }
    }
    // What building the decoded values costs, parsing aside: each line's state made again from
    // the values of its decoded one (the strings are the same short or kept ones) and freed.
    let decoded = lines.compactMap { try? PurchaseState(json: bytes[$0], options: options) }
    let building = measure(runs: runs) {
        for s in decoded {
            var t = PurchaseState(customer: s.customer, customerSince: s.customerSince, now: s.now)
            t.purchases.reserveCapacity(8)
            for p in s.purchases {
                t.purchases.append(Purchase(product: p.product, store: p.store, status: p.status,
                                            purchasedAt: p.purchasedAt, periodStart: p.periodStart,
                                            expiresAt: p.expiresAt, graceUntil: p.graceUntil, willRenew: p.willRenew,
                                            ownership: p.ownership, quantity: p.quantity, environment: p.environment))
            }
            t.usage.reserveCapacity(8)
            for u in s.usage { t.usage.append(UsageRecord(feature: u.name, kind: u.kind, at: u.at, id: u.id)) }
            sink &+= t.purchases.count &+ t.usage.count
        }
    } / Double(max(decoded.count, 1)) * 1e9
    let query = entitlement.map { "--entitlement \($0)" } ?? "--feature \(feature!)"
    print("\(lines.count) lines of \(args[2]) (\(bytes.count / max(lines.count, 1)) B a line), \(query), "
          + "median of \(runs) passes, ns a line (cumulative):")
    print("| touch each byte | decode | + build the evaluation | + answer | + write the line "
          + "| (building and freeing the decoded values alone) |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("| \(Int(touch)) | \(Int(decode)) | \(Int(build)) | \(Int(answered)) | \(Int(written)) "
          + "| \(Int(building)) |")
    if sink == 42 { print("") }  // keeps the work observable
}
