import EntlRuntime

/// Where purchase data comes from: the four formats `entlc state import --from` reads.
public enum Vendor: String, Sendable, CaseIterable {
    /// RevenueCat REST API v1 `GET /subscribers/{app_user_id}` responses.
    case revenueCat = "revenuecat"
    /// App Store Server API payloads: decoded transactions and renewal infos, and the
    /// "Get All Subscription Statuses" response.
    case appStore = "app-store"
    /// Google Play Developer API `SubscriptionPurchaseV2` and `ProductPurchase` resources.
    case play
    /// Stripe Subscription objects and Checkout Sessions (payment mode, line items expanded).
    case stripe

    /// What this vendor's payloads are, for messages.
    var payloads: String {
        switch self {
        case .revenueCat: "a RevenueCat subscriber response"
        case .appStore: "App Store Server API transactions, renewal infos or subscription statuses"
        case .play: "a Google Play SubscriptionPurchaseV2 or ProductPurchase"
        case .stripe: "a Stripe Subscription, Checkout Session or list of them"
        }
    }
}

/// One vendor document: its bytes and how messages name it.
public struct ImportDocument: Sendable {
    public var name: String
    public var bytes: [UInt8]

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}

/// What a rule set sells, as plain data: the store ids of its products and the names of its
/// entitlements, per environment. An import checks purchases and grants against it and warns
/// about what the rules would ignore (a product id the rules do not map, a typo'd entitlement).
public struct ProductCatalog: Sendable, Equatable {
    public var productIDs: [Environment: Set<StoreID>]
    /// Nil: grants are not checked.
    public var entitlements: [Environment: Set<String>]?

    public init(productIDs: [Environment: Set<StoreID>], entitlements: [Environment: Set<String>]? = nil) {
        self.productIDs = productIDs
        self.entitlements = entitlements
    }

    /// The catalog of a compiled rule graph (`entlc build`'s artifact or the compiler's output).
    public init(graph: RuleGraph) {
        var ids: [Environment: Set<StoreID>] = [:]
        var names: [Environment: Set<String>] = [:]
        for environment in Environment.allCases {
            ids[environment] = Set(graph[environment].products.flatMap(\.storeIDs))
            names[environment] = Set(graph[environment].entitlements.map(\.name))
        }
        self.init(productIDs: ids, entitlements: names)
    }
}

/// How an import reads its documents.
public struct ImportOptions: Sendable {
    /// Decode App Store JWS strings without verifying Apple's signature. Only for payloads the
    /// caller verified elsewhere: the importer does not check Apple's certificate chain.
    public var allowUnverifiedJWS: Bool
    /// When given, purchases and grants the rules would not recognise are warnings.
    public var catalog: ProductCatalog?

    public init(allowUnverifiedJWS: Bool = false, catalog: ProductCatalog? = nil) {
        self.allowUnverifiedJWS = allowUnverifiedJWS
        self.catalog = catalog
    }
}

/// An imported state: a docs/state.md document, and what deserves a look.
public struct ImportResult: Sendable {
    /// The state, keys in the format's order.
    public var state: JSONValue
    public var warnings: [ImportIssue]
    public var purchaseCount: Int
    public var grantCount: Int

    /// The state as pretty JSON ending in a newline: the same bytes for the same documents.
    public var json: [UInt8] { Array((state.pretty + "\n").utf8) }
}

/// Turns what a store or billing system reports into one customer's state (docs/import.md has
/// the mapping of every status and field, and why).
public enum StateImporter {
    /// Imports `documents` of one vendor into one state. Several documents merge (transactions and
    /// renewal infos, subscriptions and checkout sessions); the same purchase reported twice
    /// counts once. Throws the first problem, with its place; nothing is produced then.
    public static func importState(from vendor: Vendor, documents: [ImportDocument],
                                   options: ImportOptions = ImportOptions()) throws(ImportIssue) -> ImportResult {
        var builder = StateBuilder()
        let nodes = try documents.map { document throws(ImportIssue) in try parse(document, vendor) }
        switch vendor {
        case .revenueCat:
            for node in try RevenueCatReader.inRequestOrder(nodes) { try RevenueCatReader.read(node, into: &builder) }
        case .appStore:
            var reader = AppStoreReader(allowUnverifiedJWS: options.allowUnverifiedJWS)
            for node in nodes { try reader.read(node) }
            try reader.finish(into: &builder)
        case .play:
            var reader = PlayReader()
            for node in nodes { try reader.read(node, into: &builder) }
            reader.finish(into: &builder)
        case .stripe:
            for node in nodes { try StripeReader.read(node, into: &builder) }
        }
        if let catalog = options.catalog { check(builder, against: catalog, vendor: vendor, into: &builder.warnings) }
        return ImportResult(state: builder.json, warnings: builder.warnings, purchaseCount: builder.purchases.count,
                            grantCount: builder.grants.count)
    }

    /// The JSON of a document. A file holding nothing but a JWS token (as Apple returns it) reads
    /// as that string, so the App Store reader can say what it is.
    static func parse(_ document: ImportDocument, _ vendor: Vendor) throws(ImportIssue) -> Node {
        let value: JSONValue
        do throws(JSONSyntaxError) {
            value = try JSONParser.parse(document.bytes)
        } catch {
            if let token = JWS.bareToken(document.bytes) {
                let node = Node(.string(token), document: document.name)
                guard vendor == .appStore else { throw unrecognized(node, as: vendor) }
                return node
            }
            throw ImportIssue(place: ImportPlace(document: document.name, path: "\(error.line):\(error.column)"),
                              message: "invalid JSON: \(error.message)")
        }
        return try Node.document(value, document: document.name)
    }

    /// The warnings of `catalog`: product ids no product of the rules has, at the purchase's store
    /// and in its environment, and grants of entitlements the rules do not declare.
    static func check(_ builder: StateBuilder, against catalog: ProductCatalog, vendor: Vendor,
                      into warnings: inout [ImportIssue]) {
        for purchase in builder.purchases {
            let id = StoreID(store: purchase.store, id: purchase.product)
            guard !(catalog.productIDs[purchase.environment]?.contains(id) ?? false) else { continue }
            let environment = purchase.environment == .test ? " in the test environment" : ""
            let product = JSONValue.string(purchase.product).compact
            warnings.append(ImportIssue(place: purchase.place, message: "no product of the rules has id "
                                        + "\(purchase.store) \(product)\(environment): the purchase is ignored"))
        }
        guard let entitlements = catalog.entitlements?[.live] else { return }
        for grant in builder.grants where !entitlements.contains(grant.entitlement) {
            let message = "no entitlement `\(grant.entitlement)` in the rules: the grant is ignored"
            warnings.append(ImportIssue(place: grant.place, message: message))
        }
    }

    /// The error for a document (or item) that is not a payload of `vendor`: what was expected,
    /// and which vendor's payload it looks like, if any.
    static func unrecognized(_ node: Node, as vendor: Vendor) -> ImportIssue {
        if let other = VendorShape.guess(node), other != vendor {
            return node.issue("expected \(vendor.payloads); this looks like \(other.payloads): "
                              + "import it as `\(other.rawValue)`")
        }
        return node.issue("expected \(vendor.payloads), found \(node.kind)")
    }
}

/// Recognises the vendor of a payload by its characteristic keys, for the message that says
/// "this is a RevenueCat response, not a Stripe object".
enum VendorShape {
    static func guess(_ node: Node) -> Vendor? {
        switch node.value {
        case .array(let items):
            return items.first.flatMap { guess(Node($0, document: node.document)) }
        case .string(let text):
            return JWS.looksLikeToken(text) ? .appStore : nil
        case .object:
            break
        default:
            return nil
        }
        func has(_ key: String) -> Bool { node.value[key] != nil }
        if has("subscriber") || has("original_app_user_id") { return .revenueCat }
        if has("subscriptionState") || has("lineItems") || has("purchaseTimeMillis") { return .play }
        if case .string(let kind)? = node.value["kind"], kind.hasPrefix("androidpublisher#") { return .play }
        if case .string(let object)? = node.value["object"],
           ["subscription", "checkout.session", "list"].contains(object) { return .stripe }
        if has("transactionId") || has("originalTransactionId") || has("signedTransactionInfo")
            || has("signedTransactions") || has("autoRenewStatus") { return .appStore }
        if case .array(let data)? = node.value["data"], case .object? = data.first,
           data.first?["lastTransactions"] != nil { return .appStore }
        return nil
    }
}
