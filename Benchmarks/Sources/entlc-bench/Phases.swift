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
    // As `eval --states` takes a line: decoded into one scratch (its state and tables filled again,
    // not made again), evaluated there, answered, written, and the evaluation given back. Each
    // stage adds the next step to the ones before.
    var scratch = EvaluationScratch()
    let index = entitlement.flatMap { graph.live.entitlementIndex[$0] }
        ?? feature.flatMap { graph.live.featureIndex[$0] }
    guard let index else { fail("phases: no such entitlement or feature in the live environment") }
    var out = JSONBytes(capacity: 1 << 20)
    enum Stage: Int { case decode, build, answer, write }
    func line(_ line: ArraySlice<UInt8>, through stage: Stage) {
        guard (try? scratch.read(json: line, options: options)) != nil else { return }
        guard stage.rawValue >= Stage.build.rawValue,
              let e = try? scratch.evaluation(graph: graph, at: at) else { return }
        if stage.rawValue >= Stage.answer.rawValue {
            // The public calls (the batch answers into one result kept from line to line, a
            // package call: a little cheaper than these).
            if entitlement != nil {
                let r = e.entitlement(index)
                if stage == .write { e.writeJSONLine(r, warnings: e.warnings, into: &out) }
            } else {
                let r = e.feature(index, required: 1)
                if stage == .write { e.writeJSONLine(r, warnings: e.warnings, into: &out) }
            }
            if out.count > 1 << 19 { out.removeAll() }
        }
        sink &+= e.state.purchases.count
        scratch.recycle(consume e)
    }
    let touch = perLine { line in line.withUnsafeBufferPointer { for b in $0 { sink &+= Int(b) } } }
    let decode = perLine { line($0, through: .decode) }
    let build = perLine { line($0, through: .build) }
    let answered = perLine { line($0, through: .answer) }
    let written = perLine { line($0, through: .write) }
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
