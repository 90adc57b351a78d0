import EntlImport
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// The fixtures' rules (Tests/Fixtures/import/rules.entl), compiled once.
let importRules: RuleGraph = compileGraph(try! readRepoFile("Tests/Fixtures/import/rules.entl"))

/// A fixture under Tests/Fixtures/import/, as a document named by its repository path.
func fixture(_ path: String) throws -> ImportDocument {
    let relative = "Tests/Fixtures/import/" + path
    return ImportDocument(name: relative, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: repoPath(relative)))))
}

/// Imports fixtures of one vendor (unverified JWS allowed: the App Store fixtures hold unsigned tokens).
func importFixtures(_ vendor: Vendor, _ paths: [String], catalog: ProductCatalog? = nil) throws -> ImportResult {
    try StateImporter.importState(from: vendor, documents: try paths.map(fixture),
                                  options: ImportOptions(allowUnverifiedJWS: true, catalog: catalog))
}

/// The imported state as the runtime reads it: strictly, so an unknown key would fail the test.
func decodedState(_ result: ImportResult) throws -> PurchaseState {
    try PurchaseState(json: result.json, options: StateDecodingOptions(strict: true))
}

/// One access decision a fixture must lead to: entitlement `entitlement` in `environment` at `at`.
struct AccessCase: CustomStringConvertible, Sendable {
    var fixture: String
    var entitlement: String
    var at: String
    var decision: Decision
    /// The entitlement's status word (`past_due`, `billing_retry`, …), when the case is about it.
    var status: EntitlementStatus?
    var environment: Environment = .live

    init(_ fixture: String, _ entitlement: String, at: String, _ decision: Decision, _ status: EntitlementStatus? = nil,
         environment: Environment = .live) {
        self.fixture = fixture
        self.entitlement = entitlement
        self.at = at
        self.decision = decision
        self.status = status
        self.environment = environment
    }

    var description: String { "\(fixture): \(entitlement) at \(at) (\(environment.rawValue))" }

    /// Imports the fixture, decodes the state strictly and evaluates the entitlement.
    func check(_ vendor: Vendor, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let state = try decodedState(try importFixtures(vendor, [fixture]))
        let result = try evaluate(importRules, state, at: at, environment: environment).entitlement(entitlement)
        #expect(result.decision == decision, "\(self): \(result.why)", sourceLocation: sourceLocation)
        if let status { #expect(result.status == status, "\(self)", sourceLocation: sourceLocation) }
    }
}

/// The purchases of an imported state, as JSON objects.
func purchases(_ result: ImportResult) -> [JSONValue] {
    guard case .array(let items)? = result.state["purchases"] else { return [] }
    return items
}

/// The first purchase of a fixture's imported state.
func firstPurchase(_ vendor: Vendor, _ path: String) throws -> JSONValue? {
    purchases(try importFixtures(vendor, [path])).first
}

/// Expects the status word of each fixture's (first) purchase: name → status, the fixture's path
/// being `path(name)`.
func expectStatuses(_ vendor: Vendor, _ expected: [String: String], sourceLocation: SourceLocation = #_sourceLocation,
                    path: (String) -> String) throws {
    for (name, status) in expected {
        #expect(text(try firstPurchase(vendor, path(name)), "status") == status, "\(name)", sourceLocation: sourceLocation)
    }
}

/// A string member of a JSON object.
func text(_ value: JSONValue?, _ key: String) -> String? {
    guard case .string(let s)? = value?[key] else { return nil }
    return s
}
