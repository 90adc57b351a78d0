import EntlSyntax

/// The name and kind diagnostics (`E2xx`) the checker reports.
extension DiagnosticCode {
    public static let unknownName = DiagnosticCode("E201", "unknown name")
    public static let duplicateDeclaration = DiagnosticCode("E202", "duplicate declaration")
    public static let duplicateStoreID = DiagnosticCode("E203", "duplicate store product id")
    public static let wrongKindOfName = DiagnosticCode("E204", "name of the wrong kind")
    public static let quantityOnNonConsumable = DiagnosticCode("E205", "quantity on a non-consumable")
    public static let amountOnBooleanGrant = DiagnosticCode("E206", "amount on a boolean grant")
    public static let missingGrantAmount = DiagnosticCode("E207", "metered grant without an amount")
    public static let windowOnContinuousGrant = DiagnosticCode("E208", "`per` or `carry` on a continuous grant")
    public static let requiresOnMetered = DiagnosticCode("E209", "`requires` on a metered feature")
    public static let conversionOfNonMetered = DiagnosticCode("E210", "credit conversion of a non-metered feature")
    public static let subscriptionWithoutPeriod = DiagnosticCode("E211", "subscription without a period")
    public static let itemOnWrongKind = DiagnosticCode("E212", "item on the wrong kind of declaration")
    public static let numberNotPositive = DiagnosticCode("E213", "number must be positive")
    public static let entitlementCycle = DiagnosticCode("E214", "entitlement cycle")
    public static let duplicateApp = DiagnosticCode("E215", "more than one `app`")
    public static let duplicateItem = DiagnosticCode("E216", "item given twice")
    public static let invalidInstant = DiagnosticCode("E217", "invalid instant")
    public static let invalidTestItem = DiagnosticCode("E218", "test item does not fit its target")
    public static let duplicateConversion = DiagnosticCode("E219", "feature converted twice in one credit system")
    public static let duplicateEvent = DiagnosticCode("E220", "two features with one event")
    public static let dateOnEntitlement = DiagnosticCode("E221", "purchase date on an entitlement")
    public static let durationTooLong = DiagnosticCode("E222", "duration longer than 100 years")
    public static let overageOnWrongKind = DiagnosticCode("E223", "`overage` on a grant that cannot be overdrawn")
    public static let expiryOnWrongGrant = DiagnosticCode("E224", "`expires after` on a grant that cannot lapse")

    public static let checkerCodes: [DiagnosticCode] = [
        .unknownName, .duplicateDeclaration, .duplicateStoreID, .wrongKindOfName, .quantityOnNonConsumable,
        .amountOnBooleanGrant, .missingGrantAmount, .windowOnContinuousGrant, .requiresOnMetered,
        .conversionOfNonMetered, .subscriptionWithoutPeriod, .itemOnWrongKind, .numberNotPositive,
        .entitlementCycle, .duplicateApp, .duplicateItem, .invalidInstant, .invalidTestItem, .duplicateConversion,
        .duplicateEvent, .dateOnEntitlement, .durationTooLong, .overageOnWrongKind, .expiryOnWrongGrant,
    ]
}
