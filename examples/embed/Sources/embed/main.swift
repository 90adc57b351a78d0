// The example of README.md and docs/library.md, as one program that CI builds and runs from the
// repository's root: swift run --package-path examples/embed
// Every ```swift block of the documentation is a part of this package (a test checks it).

import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation

// Compile the rules (an app can instead load a graph compiled ahead of time).
let rules = try String(contentsOfFile: "examples/photos.entl", encoding: .utf8)
let graph = Compiler.compile([SourceFile(path: "photos.entl", text: rules)]).graph!

// The customer's purchases: a tracker holding a state (docs/state.md).
let stateBytes = Array(try Data(contentsOf: URL(fileURLWithPath: "examples/photos.state.json")))
let tracker = try JSONPurchaseTracker(json: stateBytes)
let debug = DebugPurchaseTracker(wrapping: tracker)     // QA menus: override products
debug.override("summer_pass", .purchased)

let evaluator = Evaluator(graph: graph, tracker: debug)
let now = Instant(rfc3339: "2026-11-22T12:00:00Z")!     // in an app: .now(), the default
let retouch = try evaluator.entitled(feature: "ai_retouch", requiredBalance: 1, at: now)
if retouch.allowed {
    print("ai_retouch: \(retouch.balance ?? 0) left, via \(retouch.via!.rawValue)")
} else {
    print("ai_retouch: \(retouch.reason)")             // denied or undetermined: never access
}
// The answer holds until retouch.validUntil; the evaluator answers from its cache until then.
let premium = try evaluator.entitlement("photos_premium", at: now)
print("photos_premium: \(premium.decision.rawValue) through \(premium.product ?? "nothing")")

// Check and consume in one step: no other consumer can spend the same unit in between. With an
// id, a retry of the same request records nothing and gets the first answer.
let consumed = try evaluator.consume(feature: "ai_retouch", amount: 1, id: "request-42", at: now)
let retried = try evaluator.consume(feature: "ai_retouch", amount: 1, id: "request-42", at: now)
print("consumed: \(consumed.allowed), retry: \(retried == consumed), recorded: \(tracker.snapshot.usage.count - 2)")

// Keep a UI in step: the monitor re-evaluates when the tracker changes and delivers change events.
let monitor = try EntitlementMonitor(evaluator: evaluator, clock: { now })
let subscription = monitor.onChange { events in
    for event in events { print("event: \(event.kind.rawValue) \(event.name)") }
}
tracker.modify { state in
    state.usage.append(UsageRecord(feature: "ai_retouch", kind: .amount(2), at: now))
}
// Nothing changes by itself before monitor.nextChange: schedule one refresh() then.
print("next change: \(monitor.nextChange?.description ?? "none")")
subscription.cancel()

// On a server: one pure evaluation per request, several questions of it, no tracker needed.
let state = try PurchaseState(json: stateBytes)
let evaluation = try Evaluation(graph: graph, state: state, at: now)
for result in evaluation.all() where result.decision == .allowed {
    if case .feature(let feature) = result { print("allowed: \(feature.name)") }
}
