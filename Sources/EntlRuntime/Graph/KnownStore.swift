import EntlSupport

/// The stores purchase trackers report (RevenueCat's and the web's payment providers), spelled as
/// a state's `store` and a rule set's `id STORE "…"` spell them. A purchase matches a store id by
/// the exact store name, so a name outside these is most likely a typo that makes a product never
/// count: the lint reports it, and an editor offers these names after `id`.
public enum KnownStore: String, Sendable, CaseIterable {
    case appStore = "app_store"
    case macAppStore = "mac_app_store"
    case playStore = "play_store"
    case amazon, stripe, paddle, web, promotional

    /// Every known store's name, in the order an editor offers them.
    public static let names = allCases.map(\.rawValue)

    /// The known store `store` most likely misspells (`appstore` → `app_store`), by edit distance;
    /// nil for a known store, or a name close to none.
    public static func suggestion(for store: String) -> String? {
        KnownStore(rawValue: store) == nil ? Suggestions.closest(to: store, among: names) : nil
    }
}
