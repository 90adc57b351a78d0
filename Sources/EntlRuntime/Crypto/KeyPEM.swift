/// Ed25519 keys as OpenSSL writes them (RFC 8410): a private key as PKCS#8 (`-----BEGIN PRIVATE
/// KEY-----`, RFC 5958), a public key as SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`), each
/// DER in PEM armour (RFC 7468). `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`
/// write these, and what this file writes is byte for byte what they write.
extension Ed25519.PublicKey {
    /// SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (0 unused bits, A) }.
    public init(pemRepresentation text: String) throws(KeyFormatError) {
        var info = try DERReader.sequence(in: PEM.body(of: text, label: "PUBLIC KEY"))
        try info.algorithm()
        let bits = try info.element(tag: 0x03, "the public key")
        try info.end()
        guard bits.first == 0 else { throw KeyFormatError(KeyText.malformed("the public key")) }  // no unused bits
        guard bits.count == 33 else { throw KeyFormatError(KeyText.wrongKeySize("public", bits.count - 1)) }
        try self.init(rawRepresentation: Array(bits.dropFirst()))
    }

    public var pemRepresentation: String {
        PEM.armour(KeyText.publicPrefix + rawRepresentation, label: "PUBLIC KEY")
    }
}

extension Ed25519.PrivateKey {
    /// PKCS#8 (OneAsymmetricKey): SEQUENCE { INTEGER 0 or 1, SEQUENCE { OID 1.3.101.112 },
    /// OCTET STRING { OCTET STRING (seed) }, [0] attributes?, [1] public key? }; a public key in the
    /// file must be the seed's.
    public init(pemRepresentation text: String) throws(KeyFormatError) {
        var key = try DERReader.sequence(in: PEM.body(of: text, label: "PRIVATE KEY"))
        let version = try key.element(tag: 0x02, "the version")
        guard version == [0] || version == [1] else { throw KeyFormatError(KeyText.unknownVersion) }
        try key.algorithm()
        var wrapped = DERReader(try key.element(tag: 0x04, "the private key"))
        let seed = try wrapped.element(tag: 0x04, "the private key")
        try wrapped.end()
        guard seed.count == 32 else { throw KeyFormatError(KeyText.wrongKeySize("private", seed.count)) }
        if key.next == 0xa0 { _ = try key.element(tag: 0xa0, "the attributes") }
        let publicBits = key.next == 0x81 ? try key.element(tag: 0x81, "the public key") : nil
        try key.end()
        try self.init(rawRepresentation: seed)
        if let publicBits, publicBits != [0] + publicKey.rawRepresentation {
            throw KeyFormatError(KeyText.publicKeyMismatch)
        }
    }

    /// PKCS#8 version 0 without attributes or public key, as OpenSSL writes it.
    public var pemRepresentation: String {
        PEM.armour(KeyText.privatePrefix + rawRepresentation, label: "PRIVATE KEY")
    }
}

/// PEM armour (RFC 7468): `-----BEGIN LABEL-----`, base64 lines, `-----END LABEL-----`.
enum PEM {
    /// The DER inside the one block of `text` that carries `label`; explanatory text before the
    /// block is allowed, as RFC 7468 allows it (and other blocks after it: a private key followed
    /// by its public key). A second block of `label` is refused: a file of two public keys would
    /// otherwise be read as its first alone, and the second silently not trusted.
    ///
    /// Lines end at a line feed (a carriage return before it is dropped), and a line that holds
    /// `-----BEGIN` or `-----END` is an armour line exactly (`-----BEGIN LABEL-----`, spaces or
    /// tabs around it), or the file is refused: another reader (OpenSSL's skips stray bytes there)
    /// must never see a key in it that entlc does not, or the other way round.
    static func body(of text: String, label: String) throws(KeyFormatError) -> [UInt8] {
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            Substring(decoding: line.last == 0x0D ? line.dropLast() : line[...], as: UTF8.self).trimmingSpaces
        }
        for line in lines where line.contains("-----BEGIN") || line.contains("-----END") {
            guard PEM.isArmour(line) else { throw KeyFormatError(KeyText.badArmour(String(line))) }
        }
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") && $0.hasSuffix("-----") }) else {
            throw KeyFormatError(KeyText.notPEM(label))
        }
        let found = String(lines[begin].dropFirst("-----BEGIN ".count).dropLast(5))
        guard found == label else { throw KeyFormatError(KeyText.wrongLabel(expected: label, found: found)) }
        guard let end = lines[begin...].firstIndex(of: "-----END \(label)-----") else {
            throw KeyFormatError(KeyText.noEnd(label))
        }
        if lines[(end + 1)...].contains("-----BEGIN \(label)-----") {
            throw KeyFormatError(KeyText.secondKey)
        }
        let body = lines[(begin + 1)..<end].joined()
        do throws(Base64Error) {
            return try Base64.decode(Array(body.utf8))
        } catch {
            throw KeyFormatError(KeyText.badBase64(error.message))
        }
    }

    /// `-----BEGIN LABEL-----` or `-----END LABEL-----`, the label of capital letters, digits and
    /// single spaces (RFC 7468's, as OpenSSL writes them).
    static func isArmour(_ line: Substring) -> Bool {
        let rest: Substring
        if line.hasPrefix("-----BEGIN ") {
            rest = line.dropFirst("-----BEGIN ".count)
        } else if line.hasPrefix("-----END ") {
            rest = line.dropFirst("-----END ".count)
        } else {
            return false
        }
        guard rest.hasSuffix("-----") else { return false }
        let label = rest.dropLast(5)
        return !label.isEmpty && label.first != " " && label.last != " " && !label.contains("  ")
            && label.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x20 }
    }

    static func armour(_ der: [UInt8], label: String) -> String {
        let text = Array(Base64.encode(der).utf8)
        var out = "-----BEGIN \(label)-----\n"
        for start in stride(from: 0, to: text.count, by: 64) {
            out += String(decoding: text[start..<min(text.count, start + 64)], as: UTF8.self) + "\n"
        }
        return out + "-----END \(label)-----\n"
    }
}

/// Reads DER (X.690) one element at a time: definite, minimal lengths only.
struct DERReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The tag of the next element, if any.
    var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The contents of the next element, which must have `tag`; `what` names it in errors.
    mutating func element(tag: UInt8, _ what: String) throws(KeyFormatError) -> [UInt8] {
        guard next == tag else { throw KeyFormatError(KeyText.malformed(what)) }
        guard index + 1 < bytes.count else { throw KeyFormatError(KeyText.malformed(what)) }
        var length = Int(bytes[index + 1])
        index += 2
        if length >= 0x80 {
            // Long form: 1 or 2 length bytes (keys are small), no leading zero, at least 128.
            let count = length - 0x80
            guard count == 1 || count == 2, index + count <= bytes.count, bytes[index] != 0 else {
                throw KeyFormatError(KeyText.malformed(what))
            }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
            guard length >= 0x80 else { throw KeyFormatError(KeyText.malformed(what)) }
        }
        guard length <= bytes.count - index else { throw KeyFormatError(KeyText.malformed(what)) }
        defer { index += length }
        return Array(bytes[index..<index + length])
    }

    /// A reader over the contents of `der`, which must be one SEQUENCE.
    static func sequence(in der: [UInt8]) throws(KeyFormatError) -> DERReader {
        var reader = DERReader(der)
        let contents = try reader.element(tag: 0x30, "the key")
        try reader.end()
        return DERReader(contents)
    }

    /// The AlgorithmIdentifier of Ed25519: SEQUENCE { OID 1.3.101.112 } without parameters.
    mutating func algorithm() throws(KeyFormatError) {
        var algorithm = DERReader(try element(tag: 0x30, "the algorithm"))
        guard try algorithm.element(tag: 0x06, "the algorithm") == [0x2b, 0x65, 0x70] else {
            throw KeyFormatError(KeyText.notEd25519)
        }
        try algorithm.end()
    }

    /// Refuses bytes after the last element.
    func end() throws(KeyFormatError) {
        guard index == bytes.count else { throw KeyFormatError(KeyText.trailingBytes) }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}

/// The fixed DER of the two key formats and the messages of this file.
private enum KeyText {
    static let privatePrefix: [UInt8] = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                                         0x04, 0x22, 0x04, 0x20]
    static let publicPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    static func notPEM(_ label: String) -> String { "not a PEM key: no `-----BEGIN \(label)-----` line" }
    static func noEnd(_ label: String) -> String { "no `-----END \(label)-----` line" }
    static let secondKey = "more than one key in the file: one key a file (give several keys as several files)"
    static func badArmour(_ line: String) -> String {
        "a line that is not a PEM armour line but holds one: \(JSONValue.string(line).compact)"
    }
    static func wrongLabel(expected: String, found: String) -> String {
        switch (expected, found) {
        case ("PUBLIC KEY", "PRIVATE KEY"):
            return "this is a private key; give the public key (`openssl pkey -in KEY -pubout`)"
        case ("PRIVATE KEY", "PUBLIC KEY"): return "this is a public key; signing needs the private key"
        case (_, "ENCRYPTED PRIVATE KEY"):
            return "the private key is encrypted; decrypt it first (`openssl pkey -in KEY -out PLAIN`)"
        default: return "expected a `\(expected)` PEM block, found `\(found)`"
        }
    }
    static func badBase64(_ reason: String) -> String { "the PEM body is not base64: \(reason)" }
    static func malformed(_ what: String) -> String { "malformed DER: \(what) is missing or cut short" }
    static let notEd25519 = "not an Ed25519 key (its algorithm is not 1.3.101.112)"
    static let unknownVersion = "not a PKCS#8 private key of version 0 or 1"
    static let trailingBytes = "malformed DER: bytes after the key"
    static let publicKeyMismatch = "the public key in the file is not the private key's"
    static func wrongKeySize(_ kind: String, _ n: Int) -> String { "an Ed25519 \(kind) key has 32 bytes, not \(n)" }
}
