import EntlSupport
import EntlSyntax

/// Unknown store (W314).
///
/// Invariant: a store id names a store that purchases come from. Purchases match `id STORE "…"`
/// by the exact store name, so `id appstore "…"` never matches a purchase from `app_store`: the
/// product silently never counts. A store outside the well-known ones is reported with the
/// closest one; a custom store is declared intended with `// entl-allow W314`.
enum UnknownStoreCheck: LintCheck {
    static let code = DiagnosticCode("W314", "unknown store")

    static func run(_ context: LintContext) {
        for case .product(let p) in context.checkedDeclarations {
            for id in p.storeIDs where !KnownStores.names.contains(id.store.name) {
                let hint = Suggestions.closest(to: id.store.name, among: KnownStores.names)
                context.report(code, message(id.store.name), file: p.site.file, at: id.store.range, label: label,
                               help: help(hint))
            }
        }
    }
}

extension UnknownStoreCheck {
    fileprivate static func message(_ store: String) -> String { "unknown store `\(store)`" }
    fileprivate static let label = "purchases name their store exactly"
    fileprivate static func help(_ hint: String?) -> String {
        (hint.map { "did you mean `\($0)`? " } ?? "the known stores are \(KnownStores.names.joined(separator: ", ")); ")
            + "for a store of your own, put `// entl-allow W314` above the product"
    }
}

/// The stores purchase trackers report (RevenueCat's and the web's payment providers): what W314
/// accepts and what an editor completes after `id`.
public enum KnownStores {
    public static let names = ["app_store", "mac_app_store", "play_store", "amazon", "stripe", "paddle", "web",
                               "promotional"]
}
