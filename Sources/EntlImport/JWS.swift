import EntlRuntime

/// App Store JWS tokens (RFC 7515 compact serialization: `header.payload.signature`, each part
/// base64url without padding). The importer reads the payload only; it never verifies the
/// signature or Apple's certificate chain, so it does so only when the caller says the token was
/// verified elsewhere.
enum JWS {
    /// Whether `text` has the shape of a compact JWS: three non-empty base64url parts.
    static func looksLikeToken(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { value(of: $0) != nil } }
    }

    /// The token a file holds when it holds nothing else (surrounding whitespace aside).
    static func bareToken(_ bytes: [UInt8]) -> String? {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return nil }
        let text = String(decoding: bytes[start...end], as: UTF8.self)
        return looksLikeToken(text) ? text : nil
    }

    /// The decoded payload of the JWS at `node`, as a node at the same place.
    static func payload(_ node: Node) throws(ImportIssue) -> Node {
        let token = try node.string()
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = decode(parts[1]) else {
            throw node.issue("not a JWS token (three base64url parts separated by `.`)")
        }
        let payload: JSONValue
        do throws(JSONSyntaxError) {
            payload = try JSONParser.parse(bytes)
        } catch {
            throw node.issue("the JWS payload is not JSON: \(error)")
        }
        return try Node.document(payload, path: node.path, document: node.document)
    }

    /// Base64url (RFC 4648 §5) without padding; nil for anything else.
    static func decode(_ text: Substring.UTF8View) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0, bits = 0
        for byte in text {
            guard let v = value(of: byte) else { return nil }
            buffer = (buffer << 6) | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // A length of 1 mod 4 cannot be; the leftover bits of a valid encoding are zero.
        guard text.count % 4 != 1, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
