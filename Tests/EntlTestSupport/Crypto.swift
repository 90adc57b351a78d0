import EntlRuntime
import Foundation

/// Bytes from hexadecimal text (tests only: traps on bad text).
public func hexBytes(_ text: some StringProtocol) -> [UInt8] {
    let digits = Array(text.utf8)
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    func value(_ d: UInt8) -> UInt8 {
        switch d {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return d - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return d - UInt8(ascii: "a") + 10
        default: preconditionFailure("not a hex digit: \(d)")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
}

/// Lowercase hexadecimal text of `bytes`.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// One test of RFC 8032 §7.1 (Tests/Fixtures/crypto/rfc8032-7.1.txt, checked against the PyPI
/// `cryptography` package when it was written).
public struct RFC8032Vector: Sendable, CustomStringConvertible {
    public var name: String
    public var secretKey: [UInt8]
    public var publicKey: [UInt8]
    public var message: [UInt8]
    public var signature: [UInt8]
    public var description: String { "TEST \(name)" }
}

/// The five Ed25519 tests of RFC 8032 §7.1: TEST 1, 2, 3, 1024 and SHA(abc).
public func rfc8032Vectors() throws -> [RFC8032Vector] {
    let text = try readRepoFile("Tests/Fixtures/crypto/rfc8032-7.1.txt")
    return text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { block in
        var fields: [String: String] = [:]
        for line in block.split(separator: "\n") {
            for key in ["SECRET KEY", "PUBLIC KEY", "MESSAGE", "SIGNATURE"] where line.hasPrefix(key + " ") {
                fields[key] = line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
            }
        }
        let name = String(block.split(separator: "\n")[0].dropFirst("TEST ".count))
        return RFC8032Vector(name: name, secretKey: hexBytes(fields["SECRET KEY"]!),
                             publicKey: hexBytes(fields["PUBLIC KEY"]!), message: hexBytes(fields["MESSAGE"] ?? ""),
                             signature: hexBytes(fields["SIGNATURE"]!))
    }
}

extension SeededRandom {
    /// `n` bytes from the generator.
    public mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// A built artifact with its graph edited and its digest recomputed the way docs/cli.md describes
/// it (SHA-256 of the `graph` member as written): what anyone can make without the signing key.
public func resealedArtifact(_ artifact: [UInt8], replacing old: String, with new: String) -> [UInt8] {
    var text = String(decoding: artifact, as: UTF8.self)
    let start = text.range(of: #","graph":"#)!.upperBound
    let end = text.range(of: "}\n", options: .backwards)!.lowerBound
    let graph = String(text[start..<end]).replacingOccurrences(of: old, with: new)
    precondition(graph != String(text[start..<end]), "`\(old)` is not in the graph")
    text = String(text[..<start]) + graph + "}\n"
    let digest = text.range(of: #""sha256":""#)!.upperBound
    text.replaceSubrange(digest..<text.index(digest, offsetBy: 64), with: SHA256.hexDigest(Array(graph.utf8)))
    return Array(text.utf8)
}

/// `bytes` cut into pieces of 1, 2, … 29, 1, 2, … bytes: hashing them one by one crosses every
/// block boundary at a different offset.
public func unevenPieces(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0, step = 1
    while start < bytes.count {
        pieces.append(bytes[start..<min(bytes.count, start + step)])
        start += step
        step = step % 29 + 1
    }
    return pieces
}
