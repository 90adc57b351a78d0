import EntlCompiler
import EntlRuntime
import EntlSyntax

/// What the server reads from disk, injected so the server itself does no I/O (the command line
/// gives it the real file system, tests an in-memory one).
public protocol WorkspaceFiles {
    /// The `.entl` files directly in `directory` (absolute paths, any order).
    func ruleFiles(inDirectory directory: String) -> [String]
    /// The `.entl` files in `directory` and below (for workspace symbols), at most `limit`.
    func ruleFiles(under directory: String, limit: Int) -> [String]
    /// A file's bytes, or nil when it cannot be read.
    func contents(of path: String) -> [UInt8]?
}

/// `file://` URIs ↔ paths (RFC 3986 percent-encoding). Other schemes (an editor's unsaved
/// `untitled:` buffer) have no path: such a document is a rule set of its own.
enum DocumentURI {
    static func path(_ uri: String) -> String? {
        guard uri.hasPrefix("file://") else { return nil }
        var rest = Array(uri.utf8.dropFirst(7))
        // `file://host/path`: only the local host (empty or `localhost`) is a path here.
        if rest.first != UInt8(ascii: "/") {
            guard rest.starts(with: Array("localhost/".utf8)) else { return nil }
            rest.removeFirst(9)
        }
        var out: [UInt8] = []
        var i = 0
        while i < rest.count {
            if rest[i] == UInt8(ascii: "%"), i + 2 < rest.count, let hi = hex(rest[i + 1]), let lo = hex(rest[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(rest[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func uri(_ path: String) -> String {
        var out = "file://"
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
            }
        }
        return out
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        Character(Unicode.Scalar(b)).hexDigitValue.map(UInt8.init)
    }

    /// The directory of a path (`/a/b.entl` → `/a`).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// An open document: the editor's buffer, which wins over the file on disk.
struct OpenDocument {
    let uri: String
    /// The file's path, or the URI itself for a document that is not a file.
    let path: String
    var version: Int?
    var bytes: [UInt8]
    /// The text when it was opened: the baseline the "keep existing customers" code action
    /// compares the current rule set with.
    let openedBytes: [UInt8]

    /// Applies `textDocument/didChange` content changes in order: a change with a `range`
    /// replaces that range (UTF-16 positions), one without replaces the whole text.
    mutating func apply(_ changes: [JSONValue]) throws(ResponseError) {
        for change in changes {
            guard let text = change["text"]?.stringValue else {
                throw ResponseError(.invalidParams, "a content change without `text`")
            }
            guard let range = change["range"] else {
                bytes = Array(text.utf8)
                continue
            }
            guard let start = Position(range["start"]), let end = Position(range["end"]), start <= end else {
                throw ResponseError(.invalidParams, "a content change with an invalid range")
            }
            let lines = TextLines(bytes)
            let (from, to) = (lines.offset(of: start), lines.offset(of: end))
            bytes.replaceSubrange(from..<to, with: Array(text.utf8))
        }
    }
}
