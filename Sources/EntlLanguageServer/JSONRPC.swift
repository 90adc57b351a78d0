import EntlRuntime

/// The base protocol of LSP: each message is `Content-Length: N\r\n` (other headers ignored),
/// a blank line, then N bytes of UTF-8 JSON. Bytes are appended as they arrive; `next()` hands
/// back each complete message body, or an error for a header that cannot be framed (the framer
/// then resynchronizes at the next `Content-Length`, so one bad message never stops the server).
public struct MessageFramer: Sendable {
    /// Bodies above this size are skipped (with an error) without being buffered.
    public static let maxContentLength = 64 << 20
    /// A header block longer than this is not a header.
    static let maxHeaderLength = 8 << 10

    public enum Frame: Equatable, Sendable {
        case message([UInt8])
        case error(String)
    }

    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of an oversized body still to be dropped.
    private var skipping = 0

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message or framing error, or nil when more bytes are needed.
    public mutating func next() -> Frame? {
        if skipping > 0 {
            let n = min(skipping, buffer.count - start)
            start += n
            skipping -= n
            if skipping > 0 { compact(); return nil }
        }
        guard let end = headerEnd() else {
            if buffer.count - start > Self.maxHeaderLength {
                let dropped = buffer.count - start
                resynchronize(from: start + 1)
                return .error("dropped \(dropped) bytes that are not an LSP header")
            }
            compact()
            return nil
        }
        let header = String(decoding: buffer[start..<end], as: UTF8.self)
        var length: Int?
        for line in header.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == "content-length" {
                length = Int(line[line.index(after: colon)...].filter { $0 != " " && $0 != "\t" })
            }
        }
        guard let length, length >= 0 else {
            resynchronize(from: end + 4)
            return .error("message header without a valid Content-Length")
        }
        let bodyStart = end + 4
        if length > Self.maxContentLength {
            start = bodyStart
            skipping = length
            _ = next() as Frame?  // drops what is already buffered
            return .error("message of \(length) bytes exceeds the limit of \(Self.maxContentLength) bytes; skipped")
        }
        guard buffer.count - bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        start = bodyStart + length
        compact()
        return .message(body)
    }

    /// The index of the `\r\n\r\n` that ends the header at `start`.
    private func headerEnd() -> Int? {
        var i = start
        while i + 3 < buffer.count {
            if buffer[i] == 13, buffer[i + 1] == 10, buffer[i + 2] == 13, buffer[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// Drops bytes up to the next `Content-Length` at or after `index`.
    private mutating func resynchronize(from index: Int) {
        let marker = Array("Content-Length".utf8)
        var i = index
        while i + marker.count <= buffer.count {
            if buffer[i..<i + marker.count].elementsEqual(marker) { break }
            i += 1
        }
        start = min(i, buffer.count)
        compact()
    }

    private mutating func compact() {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// `Content-Length: N\r\n\r\n` followed by the body.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

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
