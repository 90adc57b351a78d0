import EntlRuntime

/// JSON-RPC 2.0 error codes used by the server.
public enum ErrorCode: Int64, Sendable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case serverNotInitialized = -32002
    /// LSP 3.17: a request that is valid but could not be carried out (format a file with
    /// syntax errors, rename to a taken name).
    case requestFailed = -32803
}

/// A request that fails with a JSON-RPC error response.
public struct ResponseError: Error, Sendable {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

// MARK: - Reading and building JSON values

extension JSONValue {
    /// An object from literal members, in order.
    static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { (key: $0.key, value: $0.value) })
    }

    var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// An integer, whether parsed (`.number`) or built (`.int`).
    var intValue: Int? {
        switch self {
        case .int(let n): Int(exactly: n)
        case .number(let text): Int(text)
        default: nil
        }
    }

    /// The value at a path of object keys.
    subscript(path: String...) -> JSONValue? {
        var value: JSONValue? = self
        for key in path { value = value?[key] }
        return value
    }

    static func int(_ n: Int) -> JSONValue { .int(Int64(n)) }
}
