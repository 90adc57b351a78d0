/// Where a vendor payload said something: the document (a file name) and the place inside it,
/// `subscriber.subscriptions.annual.expires_date` or `data[0].lastTransactions[1]`.
public struct ImportPlace: Sendable, Equatable, CustomStringConvertible {
    /// How the document is named in messages (a file path, `<stdin>`).
    public var document: String
    /// The place inside the document; empty for the document as a whole, `line:column` for a
    /// JSON syntax error.
    public var path: String

    public var description: String { path.isEmpty ? document : "\(document): \(path)" }
}

/// One problem with an import, with its place:
/// `rc.json: subscriber.subscriptions.annual.expires_date: "2026-13-01" is not an RFC 3339 instant`.
///
/// Thrown when the import cannot be done (nothing is produced); collected in
/// `ImportResult.warnings` when it can, but something deserves a look (a product id the rules do
/// not know, a purchase Google refunds unless it is acknowledged).
public struct ImportIssue: Error, Sendable, Equatable, CustomStringConvertible {
    public var place: ImportPlace
    public var message: String

    public init(place: ImportPlace, message: String) {
        self.place = place
        self.message = message
    }

    public var description: String { "\(place): \(message)" }
}
