import EntlCompiler
import EntlRuntime
import Testing

/// `KnownStore`: the well-known store names as a runtime type, for the lint, completion and the
/// state's warnings to share.
@Suite struct KnownStoreTests {
    /// The same names, in the same order, as the list the lint W314 and completion use today (until
    /// they read this type).
    @Test func namesTheStoresTheLintKnows() {
        #expect(KnownStore.names == KnownStores.names)
        #expect(KnownStore.names.first == "app_store" && KnownStore(rawValue: "play_store") == .playStore)
    }

    @Test(arguments: [
        ("appstore", "app_store"), ("App_Store", "app_store"), ("play-store", "play_store"), ("strpe", "stripe"),
        ("mac_appstore", "mac_app_store"), ("promo", nil), ("my_billing", nil), ("stripe", nil), ("web", nil),
    ] as [(String, String?)])
    func suggestsTheStoreAMisspellingMeant(store: String, expected: String?) {
        #expect(KnownStore.suggestion(for: store) == expected)
    }
}
