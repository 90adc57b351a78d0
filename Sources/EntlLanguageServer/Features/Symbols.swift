import EntlCompiler
import EntlSyntax

/// A declaration as an outline or a symbol search shows it.
public struct DocumentSymbol: Equatable, Sendable {
    public enum Kind: Sendable {
        case app, environment, product, test, feature, entitlement, credits
    }

    public var name: String
    public var detail: String
    public var kind: Kind
    /// The whole declaration.
    public var range: SourceRange
    /// Its name (or what stands for one: an app's id, a test's description).
    public var selectionRange: SourceRange
    /// An environment block's declarations.
    public var children: [DocumentSymbol]

    public init(name: String, detail: String, kind: Kind, range: SourceRange, selectionRange: SourceRange,
                children: [DocumentSymbol] = []) {
        (self.name, self.detail, self.kind) = (name, detail, kind)
        (self.range, self.selectionRange, self.children) = (range, selectionRange, children)
    }
}

/// A declared name found by a workspace symbol search.
public struct WorkspaceSymbol: Equatable, Sendable {
    public var name: String
    public var kind: DocumentSymbol.Kind
    public var location: Location

    public init(name: String, kind: DocumentSymbol.Kind, location: Location) {
        (self.name, self.kind, self.location) = (name, kind, location)
    }
}

/// The outline of a document and the names of a workspace: syntax, no check needed.
public enum Symbols {
    /// The outline of a file's current text, parsed (its rule set is not checked).
    public static func outline(_ source: SourceFile) -> [DocumentSymbol] {
        Parser.parse(source).file.declarations.map(symbol)
    }

    private static func symbol(_ d: Declaration) -> DocumentSymbol {
        let (name, kind, detail, selection): (String, DocumentSymbol.Kind, String, SourceRange)
        var children: [DocumentSymbol] = []
        switch d {
        case .app(let a): (name, kind, detail, selection) = ("app \"\(a.id.value)\"", .app, "", a.id.range)
        case .product(let p):
            (name, kind, detail, selection) = (p.name.name, .product, p.kind?.value.rawValue ?? "product", p.name.range)
        case .feature(let f):
            (name, kind, detail, selection) = (f.name.name, .feature, (f.kind?.value.rawValue ?? "") + " feature",
                                               f.name.range)
        case .credits(let c): (name, kind, detail, selection) = (c.name.name, .credits, "credits", c.name.range)
        case .entitlement(let e): (name, kind, detail, selection) = (e.name.name, .entitlement, "= \(e.expression)",
                                                                     e.name.range)
        case .environment(let e):
            (name, kind, detail, selection) = ("environment \(e.environment.value.rawValue)", .environment, "",
                                               e.environment.range)
            children = e.declarations.map(symbol)
        case .test(let t):
            (name, kind, detail, selection) = ("test \"\(t.description.value)\"", .test, "", t.description.range)
        }
        return DocumentSymbol(name: name, detail: detail, kind: kind, range: d.range, selectionRange: selection,
                              children: children)
    }

    /// The products, entitlements, features and credit systems of a parsed file whose name
    /// contains the characters of `query` in order, ignoring case.
    public static func matching(_ query: String, in file: RuleFile) -> [WorkspaceSymbol] {
        let query = Array(query.lowercased())
        var out: [WorkspaceSymbol] = []
        for d in file.declarationsInBlocks {
            guard let name = d.name, let kind = kind(d), matches(query, name.name) else { continue }
            out.append(WorkspaceSymbol(name: name.name, kind: kind, location: Location(file: file.path,
                                                                                       range: name.range)))
        }
        return out
    }

    /// The kind of a declaration that declares a name.
    private static func kind(_ d: Declaration) -> DocumentSymbol.Kind? {
        switch d {
        case .product: .product
        case .feature: .feature
        case .credits: .credits
        case .entitlement: .entitlement
        case .app, .environment, .test: nil
        }
    }

    /// Whether the characters of `query` (lowercased) appear in `name` in order.
    static func matches(_ query: [Character], _ name: String) -> Bool {
        var i = 0
        for c in name.lowercased() where i < query.count && c == query[i] { i += 1 }
        return i == query.count
    }
}
