import EntlImport
import EntlRuntime

// The invariants of `entlc state import` the import fuzz target checks (Fuzz/targets/ImportFuzz.swift),
// shared with `swift test`. This file imports only the entl modules: Fuzz/build.sh compiles it into the
// libFuzzer executable as it is.

/// The fuzz input's shape: the first byte picks the vendor (low two bits), whether unverified JWS
/// are allowed (bit 2) and whether the rules' catalog is given (bit 3); the rest is up to four
/// documents separated by NUL bytes.
public func importFuzzInput(_ bytes: [UInt8]) -> (vendor: Vendor, options: ImportOptions, documents: [ImportDocument]) {
    let flags = bytes.first ?? 0
    let vendor = Vendor.allCases[Int(flags & 3)]
    let catalog = ProductCatalog(
        productIDs: [.live: [StoreID(store: "app_store", id: "annual"), StoreID(store: "stripe", id: "price_1")],
                     .test: []],
        entitlements: [.live: ["pro_cat"]])
    let options = ImportOptions(allowUnverifiedJWS: flags & 4 != 0, catalog: flags & 8 != 0 ? catalog : nil)
    let parts = bytes.dropFirst().split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
    let documents = parts.enumerated().map { ImportDocument(name: "doc\($0).json", bytes: Array($1)) }
    return (vendor, options, documents)
}

/// What an import promises for any input: a failure description, or nil.
///
/// It never traps; it gives the same answer twice; an imported state is JSON the state decoder
/// reads, strictly when it has no grants (the one key the decoder may not know yet), and every
/// problem it reports names its document.
public func importProblem(_ bytes: [UInt8]) -> String? {
    let (vendor, options, documents) = importFuzzInput(bytes)
    func run() -> Result<ImportResult, ImportIssue> {
        do throws(ImportIssue) {
            return .success(try StateImporter.importState(from: vendor, documents: documents, options: options))
        } catch {
            return .failure(error)
        }
    }
    let (first, second) = (run(), run())
    switch (first, second) {
    case (.failure(let a), .failure(let b)):
        if a != b { return "two imports of the same input failed differently: \(a) / \(b)" }
        if !documents.map(\.name).contains(a.place.document) { return "an error names no document: \(a)" }
        return nil
    case (.success(let a), .success(let b)):
        if a.json != b.json || a.warnings != b.warnings { return "two imports of the same input differ" }
        if let w = a.warnings.first(where: { !documents.map(\.name).contains($0.place.document) }) {
            return "a warning names no document: \(w)"
        }
        return stateProblem(ofImport: a)
    default:
        return "one import of an input succeeded and one failed"
    }
}

/// Whether an import's state is a state: it parses, and decodes (strictly when it has no grants).
public func stateProblem(ofImport result: ImportResult) -> String? {
    let hasGrants = result.state["grants"] != nil
    do throws(StateError) {
        let state = try PurchaseState(json: result.json, options: StateDecodingOptions(strict: !hasGrants))
        if state.purchases.count != result.purchaseCount {
            return "the state holds \(state.purchases.count) purchases, not \(result.purchaseCount)"
        }
        if let w = state.warnings.first(where: { $0.path != "grants" }) {
            return "the imported state has a warning: \(w)"
        }
    } catch {
        return "the imported state does not decode: \(error)"
    }
    return nil
}
