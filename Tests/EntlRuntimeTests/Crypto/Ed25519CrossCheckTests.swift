import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// The Swift half of Tests/Crypto/crosscheck.sh, which runs it with ENTLC_CROSSCHECK_CASES (the
/// cases PyPI `cryptography` made: seeds, messages, its keys as PEM, its signatures, and tampered
/// copies) and ENTLC_CROSSCHECK_OUT (where our keys and signatures go, for `cryptography` to check).
/// Skipped in a plain `swift test`: it needs the Python side.
@Suite struct Ed25519CrossCheckTests {
    static let casesPath = ProcessInfo.processInfo.environment["ENTLC_CROSSCHECK_CASES"]
    static let outputPath = ProcessInfo.processInfo.environment["ENTLC_CROSSCHECK_OUT"]

    @Test(.enabled(if: casesPath != nil && outputPath != nil, "run by Tests/Crypto/crosscheck.sh"))
    func agreesWithCryptographyByteForByte() throws {
        let text = try String(contentsOfFile: try #require(Self.casesPath), encoding: .utf8)
        var out = ""
        var count = 0
        for line in text.split(separator: "\n") {
            let c = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            let seed = hexBytes(c["seed"]!), message = hexBytes(c["message"]!), theirs = hexBytes(c["signature"]!)
            let key = try Ed25519.PrivateKey(rawRepresentation: seed)
            let ours = key.signature(for: message)
            let label = "case \(count) (message of \(message.count) bytes)"
            #expect(key.publicKey.rawRepresentation == hexBytes(c["public"]!), "\(label): public key")
            #expect(ours == theirs, "\(label): signature")
            #expect(key.publicKey.isValidSignature(theirs, for: message), "\(label): their signature")
            let badSignature = hexBytes(c["bad_signature"]!)
            #expect(!key.publicKey.isValidSignature(badSignature, for: message), "\(label): bad signature")
            #expect(!key.publicKey.isValidSignature(theirs, for: hexBytes(c["bad_message"]!)), "\(label): bad message")
            // Their PEM files read, and ours are the same text.
            #expect(try Ed25519.PrivateKey(pemRepresentation: c["private_pem"]!).rawRepresentation == seed, "\(label)")
            #expect(try Ed25519.PublicKey(pemRepresentation: c["public_pem"]!) == key.publicKey, "\(label)")
            #expect(key.pemRepresentation == c["private_pem"]!, "\(label): private PEM")
            #expect(key.publicKey.pemRepresentation == c["public_pem"]!, "\(label): public PEM")
            let record: [String: String] = [
                "message": c["message"]!, "signature": hexString(ours),
                "private_pem": key.pemRepresentation, "public_pem": key.publicKey.pemRepresentation,
            ]
            let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            out += String(decoding: json, as: UTF8.self) + "\n"
            count += 1
        }
        #expect(count >= 100)
        try out.write(toFile: try #require(Self.outputPath), atomically: true, encoding: .utf8)
    }
}
