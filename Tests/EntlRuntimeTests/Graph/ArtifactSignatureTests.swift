import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// Signed artifacts: with trusted keys, only the exact bytes a trusted key signed load.
@Suite struct ArtifactSignatureTests {
    static let rules = """
        app "com.example.signed"
        product pro: subscription { period month }
        feature export: boolean
        entitlement premium = pro { grants export }
        """

    static func key(_ name: String) throws -> Ed25519.PrivateKey {
        try Ed25519.PrivateKey(pemRepresentation: readRepoFile("Tests/Fixtures/keys/\(name).pem"))
    }

    static func trusted(_ names: String...) throws -> TrustedKeys {
        try TrustedKeys(pemRepresentations: names.map { try readRepoFile("Tests/Fixtures/keys/\($0).pem.pub") })
    }

    @Test func aSignedArtifactLoadsWithItsKeyAndOnlyWithIt() throws {
        let bytes = RuleGraphArtifact.encode(compileGraph(Self.rules), compiler: "entlc test")
        let signature = ArtifactSignature.file(signing: bytes, with: try Self.key("openssl"))
        #expect(signature.count == 89 && signature.last == UInt8(ascii: "\n"))
        let loaded = try RuleGraphArtifact(bytes: bytes, signature: signature, trustedKeys: Self.trusted("openssl"))
        #expect(loaded.graph.live.products.map(\.name) == ["pro"])
        // Rotation: either of two trusted keys will do.
        _ = try RuleGraphArtifact(bytes: bytes, signature: signature, trustedKeys: Self.trusted("second", "openssl"))
        let refusals: [(TrustedKeys, [UInt8]?, String)] = [
            (try Self.trusted("second"), signature, "signature: the signature is not valid for the trusted key: "
                + "the artifact was changed after it was signed, or signed with another key"),
            (try Self.trusted("second", "second"), signature, "signature: the signature is not valid for any of the 2 "
                + "trusted keys: the artifact was changed after it was signed, or signed with another key"),
            (try Self.trusted("openssl"), nil, "signature: the artifact is not signed (no signature file)"),
            (TrustedKeys([]), signature, "signature: no trusted keys were given, so no signature can be accepted"),
            (try Self.trusted("openssl"), Array(signature.dropLast(3)) + [10],
             "signature: not a signature: 86 characters of base64 (a multiple of 4 was expected)"),
            (try Self.trusted("openssl"), Array("AAAA\n".utf8),
             "signature: not a signature: 3 bytes instead of Ed25519's 64"),
            (try Self.trusted("openssl"), [], "signature: not a signature: 0 bytes instead of Ed25519's 64"),
            (try Self.trusted("openssl"), signature + [10],
             "signature: not a signature: an empty line in the signature file"),
        ]
        for (keys, signature, message) in refusals {
            do {
                _ = try RuleGraphArtifact(bytes: bytes, signature: signature, trustedKeys: keys)
                Issue.record("accepted: \(message)")
            } catch {
                #expect(error.description == message)
            }
        }
    }

    /// The signature file may be wrapped the way `base64` wraps (76 columns) and end in CRLF.
    @Test func wrappedSignatureFilesRead() throws {
        let bytes = RuleGraphArtifact.encode(compileGraph(Self.rules), compiler: "entlc test")
        let line = Array(ArtifactSignature.file(signing: bytes, with: try Self.key("openssl")).dropLast())
        let wrapped = Array(line[..<76]) + [13, 10] + Array(line[76...]) + [13, 10]
        #expect(try ArtifactSignature.signature(inFile: wrapped) == ArtifactSignature.signature(inFile: line))
        _ = try RuleGraphArtifact(bytes: bytes, signature: wrapped, trustedKeys: Self.trusted("openssl"))
    }

    /// Every byte of a small signed artifact and of its signature file, flipped in its lowest and
    /// its highest bit: each of the changed files is refused, at the signature.
    @Test func everyFlippedByteIsRefused() throws {
        let bytes = RuleGraphArtifact.encode(compileGraph("app \"x\"\nproduct p: non_consumable\n"), compiler: "entlc")
        let signature = ArtifactSignature.file(signing: bytes, with: try Self.key("openssl"))
        let keys = try Self.trusted("openssl")
        _ = try RuleGraphArtifact(bytes: bytes, signature: signature, trustedKeys: keys)
        var refused = 0
        for i in bytes.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var changed = bytes
                changed[i] ^= mask
                do {
                    _ = try RuleGraphArtifact(bytes: changed, signature: signature, trustedKeys: keys)
                    Issue.record("byte \(i) ^ \(mask) was accepted")
                } catch {
                    #expect(error.path == "signature")
                    refused += 1
                }
            }
        }
        for i in signature.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var changed = signature
                changed[i] ^= mask
                #expect(throws: RuleGraphArtifactError.self, "signature byte \(i) ^ \(mask)") {
                    try RuleGraphArtifact(bytes: bytes, signature: changed, trustedKeys: keys)
                }
            }
        }
        #expect(refused == 2 * bytes.count && bytes.count > 300)
    }

    /// A resealed artifact passes the digest check: without keys it loads (the digest detects
    /// corruption, not forgery); with a key it is refused whatever its digest says.
    @Test func aResealedArtifactIsRefusedOnlyWithKeys() throws {
        let bytes = RuleGraphArtifact.encode(compileGraph(Self.rules), compiler: "entlc test")
        let signature = ArtifactSignature.file(signing: bytes, with: try Self.key("openssl"))
        let forged = resealedArtifact(bytes, replacing: #""name":"premium""#, with: #""name":"premiun""#)
        let unchecked = try RuleGraphArtifact(bytes: forged)
        #expect(unchecked.graph.live.entitlements.map(\.name) == ["premiun"])
        #expect(throws: RuleGraphArtifactError(path: "signature", message: TrustedKeysText.notTrusted)) {
            try RuleGraphArtifact(bytes: forged, signature: signature, trustedKeys: Self.trusted("openssl"))
        }
        // Signed with the key, the same forged bytes load: the signature vouches for exactly them.
        let signedForgery = ArtifactSignature.file(signing: forged, with: try Self.key("openssl"))
        _ = try RuleGraphArtifact(bytes: forged, signature: signedForgery, trustedKeys: Self.trusted("openssl"))
    }

    /// A correctly signed artifact still goes through every check of the decoder.
    @Test func aSignedButCorruptArtifactIsStillRefused() throws {
        let bytes = RuleGraphArtifact.encode(compileGraph(Self.rules), compiler: "entlc test")
        let corrupt = Array(String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: #""name":"premium""#, with: #""name":"premiun""#).utf8)
        let signature = ArtifactSignature.file(signing: corrupt, with: try Self.key("openssl"))
        let keys = try Self.trusted("openssl")
        #expect(throws: RuleGraphArtifactError.self) {
            try RuleGraphArtifact(bytes: corrupt, signature: signature, trustedKeys: keys)
        }
        do {
            _ = try RuleGraphArtifact(bytes: corrupt, signature: signature, trustedKeys: keys)
        } catch {
            #expect(error.path == "sha256")
        }
    }
}

private enum TrustedKeysText {
    static let notTrusted = "the signature is not valid for the trusted key: "
        + "the artifact was changed after it was signed, or signed with another key"
}
