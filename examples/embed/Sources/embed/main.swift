// The example of docs/library.md and docs/signing.md, as one program that CI builds and runs from
// the repository's root, after building and signing the rules as a release pipeline would (with
// the repository's test key, whose public key is pinned below):
//   swift run entlc build examples/photos.entl -o .build/photos.graph.json --sign Tests/Fixtures/keys/openssl.pem
//   swift run --package-path examples/embed embed .build/photos.graph.json
// Every ```swift block of the documentation is a part of this package (a test checks it).

import EntlRuntime
import Foundation

// Load the rules CI built and the app shipped (or downloaded): checked, never trusted.
let artifactPath = CommandLine.arguments.dropFirst().first ?? ".build/photos.graph.json"
let artifactBytes = Array(try Data(contentsOf: URL(fileURLWithPath: artifactPath)))
let artifact = try RuleGraphArtifact(bytes: artifactBytes)  // throws RuleGraphArtifactError, never traps
let graph = artifact.graph
print("rules \(artifact.sha256.prefix(12)), built by \(artifact.compiler)")

// The customer's purchases: a tracker holding a state (docs/state.md).
let stateBytes = Array(try Data(contentsOf: URL(fileURLWithPath: "examples/photos.state.json")))
let tracker = try JSONPurchaseTracker(json: stateBytes)
let debug = DebugPurchaseTracker(wrapping: tracker)     // QA menus: override products
debug.override("summer_pass", .purchased)

let evaluator = Evaluator(graph: graph, tracker: debug)
let now = Instant(rfc3339: "2026-11-22T12:00:00Z")!     // in an app: .now(), the default
// Typed identifiers from `entlc gen swift` (PhotosIdentifiers.swift): a renamed feature is a
// compile error, not a silent denial.
let retouch = try evaluator.entitled(.aiRetouch, requiredBalance: 1, at: now)
if retouch.allowed {
    print("ai_retouch: \(retouch.balance ?? 0) \(retouch.unit ?? "") left, via \(retouch.via!.rawValue)")
} else {
    print("ai_retouch: \(retouch.reason)")             // denied or undetermined: never access
}
// The answer holds until retouch.validUntil; the evaluator answers from its cache until then.
let premium = try evaluator.entitlement(.photosPremium, at: now)
switch premium.status {
case .active, .trialing: print("photos_premium: \(premium.displayName ?? "") until \(premium.expiresAt?.description ?? "forever")")
case .pastDue, .billingRetry: print("photos_premium: payment issue, update your card")
case .canceled: print("photos_premium: ends \(premium.expiresAt?.description ?? "")")
default: print("photos_premium: \(premium.status.rawValue)")
}

// A paywall: what a new customer could buy to get RAW export.
let newcomer = Evaluator(graph: graph, tracker: JSONPurchaseTracker())
if let offers = try newcomer.unlockingProducts(.rawExport, at: now) {
    print("raw_export: unlock with \(offers.map { $0.storeIDs["app_store"] ?? $0.name })")
}

// Check and consume in one step: no other consumer can spend the same unit in between. With an
// id, a retry of the same request records nothing and gets the first answer, marked replayed.
// Usage is recorded on the customer's own tracker: a debug tracker with overrides refuses to.
let server = Evaluator(graph: graph, tracker: tracker)
let consumed = try server.consume(feature: "ai_retouch", amount: 1, id: "request-42", at: now)
let retried = try server.consume(feature: "ai_retouch", amount: 1, id: "request-42", at: now)
print("consumed: \(consumed.allowed), retry replayed: \(retried.replayed), recorded: \(tracker.snapshot.usage.count - 2)")

// Keep a UI in step: the monitor re-evaluates when the tracker changes and delivers change events.
let monitor = try EntitlementMonitor(evaluator: evaluator, clock: { now })
let subscription = monitor.onChange { events in
    for event in events { print("event: \(event.kind.rawValue) \(event.name)") }
}
tracker.modify { state in
    state.usage.append(UsageRecord(feature: "ai_retouch", kind: .amount(2), at: now))
}
// The store reports that the customer turned off auto-renewal: a lifecycle event.
tracker.modify { state in
    state.purchases[0].status = .canceled
    state.purchases[0].willRenew = false
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

// A long history: fold the uses before an instant into the state's ledger (docs/ledger.md). From
// that instant on, every answer is the whole history's.
let cut = Instant(rfc3339: "2026-11-15T00:00:00Z")!
let compacted = try LedgerCompaction.compact(graph: graph, state: state, before: cut)
let left = try Evaluation(graph: graph, state: compacted.state, at: now).feature("ai_retouch").balance
print("usage records kept: \(compacted.state.usage.count) of \(state.usage.count), retouches left: \(left ?? 0)")
tracker.update(compacted.state)

// Rules downloaded from a server: load them only if the release key signed them (docs/signing.md).
// While the release key rotates, the app trusts the old key and the new one.
let releaseKeys = try TrustedKeys(pemRepresentations: [
    """
    -----BEGIN PUBLIC KEY-----
    MCowBQYDK2VwAyEArIybDCLO0LmFuxtAeCuuni6GHdQspNZVT1ffxsdqqEM=
    -----END PUBLIC KEY-----
    """,
    """
    -----BEGIN PUBLIC KEY-----
    MCowBQYDK2VwAyEA+a3t3rMO7HZzJ70f/hn8BvKCNnDWElL1qJ75mGZsLuU=
    -----END PUBLIC KEY-----
    """,
])
let signature = try? Array(Data(contentsOf: URL(fileURLWithPath: artifactPath + ".sig")))  // nil: unsigned
let signed = try RuleGraphArtifact(bytes: artifactBytes, signature: signature, trustedKeys: releaseKeys)
print("rules \(signed.sha256.prefix(12)): signed by a release key")
