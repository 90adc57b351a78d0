@testable import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// Keys as OpenSSL writes them (PKCS#8 and SubjectPublicKeyInfo PEM), and the strict base64 under them.
@Suite struct KeyPEMTests {
    /// Tests/Fixtures/keys/openssl.pem was written by `openssl genpkey -algorithm ed25519` and
    /// openssl.pem.pub by `openssl pkey -in openssl.pem -pubout`: both read, and written back byte for byte.
    @Test func keysWrittenByOpenSSLReadAndWriteBackIdentically() throws {
        let privateText = try readRepoFile("Tests/Fixtures/keys/openssl.pem")
        let publicText = try readRepoFile("Tests/Fixtures/keys/openssl.pem.pub")
        let key = try Ed25519.PrivateKey(pemRepresentation: privateText)
        let publicKey = try Ed25519.PublicKey(pemRepresentation: publicText)
        #expect(key.publicKey == publicKey)
        #expect(key.pemRepresentation == privateText)
        #expect(publicKey.pemRepresentation == publicText)
        // Windows line endings, indentation and explanatory text before the block are fine.
        let crlf = "Ed25519 release key\r\n" + publicText.replacingOccurrences(of: "\n", with: "\r\n  ")
        #expect(try Ed25519.PublicKey(pemRepresentation: crlf) == publicKey)
        // A private key followed by its public key reads as the private key.
        #expect(try Ed25519.PrivateKey(pemRepresentation: privateText + publicText).publicKey == publicKey)
    }

    /// RFC 8410 §10.3's example private key, also in its version 2 form with an attribute and the
    /// public key (which neither OpenSSL 3.0 nor PyPI `cryptography` read).
    @Test func rfc8410Examples() throws {
        let v1 = """
            -----BEGIN PRIVATE KEY-----
            MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC
            -----END PRIVATE KEY-----

            """
        let v2 = """
            -----BEGIN PRIVATE KEY-----
            MHICAQEwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC
            oB8wHQYKKoZIhvcNAQkJFDEPDA1DdXJkbGUgQ2hhaXJzgSEAGb9ECWmEzf6FQbrB
            Z9w7lshQhqowtrbLDFw4rXAxZuE=
            -----END PRIVATE KEY-----
            """
        let key = try Ed25519.PrivateKey(pemRepresentation: v1)
        #expect(key.rawRepresentation == hexBytes("d4ee72dbf913584ad5b6d8f1f769f8ad3afe7c28cbf1d4fbe097a88f44755842"))
        #expect(hexString(key.publicKey.rawRepresentation)
            == "19bf44096984cdfe8541bac167dc3b96c85086aa30b6b6cb0c5c38ad703166e1")
        #expect(key.pemRepresentation == v1)
        #expect(try Ed25519.PrivateKey(pemRepresentation: v2).publicKey == key.publicKey)
        #expect(key.publicKey.pemRepresentation == """
            -----BEGIN PUBLIC KEY-----
            MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=
            -----END PUBLIC KEY-----

            """)
        // The version 2 form with another public key than the seed's.
        let mismatched = v2.replacingOccurrences(of: "rXAxZuE=", with: "rXAxZuA=")
        #expect(throws: KeyFormatError("the public key in the file is not the private key's")) {
            try Ed25519.PrivateKey(pemRepresentation: mismatched)
        }
    }

    @Test func whatIsNotAnEd25519KeySaysWhy() throws {
        let privateText = try readRepoFile("Tests/Fixtures/keys/openssl.pem")
        let publicText = try readRepoFile("Tests/Fixtures/keys/openssl.pem.pub")
        let cases: [(String, Bool, String)] = [
            ("", false, "not a PEM key: no `-----BEGIN PUBLIC KEY-----` line"),
            (privateText, false, "this is a private key; give the public key (`openssl pkey -in KEY -pubout`)"),
            (publicText, true, "this is a public key; signing needs the private key"),
            ("-----BEGIN CERTIFICATE-----\nMIGb\n-----END CERTIFICATE-----\n", false,
             "expected a `PUBLIC KEY` PEM block, found `CERTIFICATE`"),
            ("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIGb\n-----END ENCRYPTED PRIVATE KEY-----\n", true,
             "the private key is encrypted; decrypt it first (`openssl pkey -in KEY -out PLAIN`)"),
            (publicText.replacingOccurrences(of: "-----END PUBLIC KEY-----\n", with: ""), false,
             "no `-----END PUBLIC KEY-----` line"),
            (publicText + publicText, false,
             "more than one key in the file: one key a file (give several keys as several files)"),
            // A review: stray bytes on the armour lines hid the first block from entlc (not from
            // OpenSSL, which showed it) and the second was trusted; a line feed turned vertical
            // tab read as a line end.
            (publicText.replacingOccurrences(of: "KEY-----\n", with: "KEY-----\u{A0}\n") + publicText, false,
             #"a line that is not a PEM armour line but holds one: "-----BEGIN PUBLIC KEY-----\#u{A0}""#),
            (publicText.replacingOccurrences(of: "KEY-----\n", with: "KEY-----\u{1}\n"), false,
             #"a line that is not a PEM armour line but holds one: "-----BEGIN PUBLIC KEY-----\u0001""#),
            (publicText.replacingOccurrences(of: "-----\nMCow", with: "-----\u{B}MCow"), false,
             #"a line that is not a PEM armour line but holds one: "-----BEGIN PUBLIC KEY-----\u000b"#
                + #"MCowBQYDK2VwAyEArIybDCLO0LmFuxtAeCuuni6GHdQspNZVT1ffxsdqqEM=""#),
            (publicText.replacingOccurrences(of: "MCow", with: "MC!w"), false,
             "the PEM body is not base64: `!` at character 3 is not base64"),
            (try readRepoFile("Tests/Fixtures/keys/p256.pem"), true,
             "not an Ed25519 key (its algorithm is not 1.3.101.112)"),
            (publicText.replacingOccurrences(of: "MCowBQYDK2VwAyEA", with: "MCowBQYDK2VwAyEB"), false,
             "malformed DER: the public key is missing or cut short"),
            (PEM.armour(hexBytes("3029300506032b6570032000") + Array(repeating: 9, count: 31), label: "PUBLIC KEY"),
             false,
             "an Ed25519 public key has 32 bytes, not 31"),
            (PEM.armour(hexBytes("302a300506032b6570032100") + Array(repeating: 0, count: 31), label: "PUBLIC KEY"),
             false, "malformed DER: the key is missing or cut short"),
            (PEM.armour(hexBytes("302a300506032b6570032100") + Array(repeating: 0, count: 33), label: "PUBLIC KEY"),
             false, "malformed DER: bytes after the key"),
            (PEM.armour(hexBytes("302e020102300506032b657004220420") + Array(repeating: 7, count: 32),
                        label: "PRIVATE KEY"),
             true, "not a PKCS#8 private key of version 0 or 1"),
        ]
        for (text, isPrivate, message) in cases {
            #expect(throws: KeyFormatError(message), "\(message)") {
                if isPrivate { _ = try Ed25519.PrivateKey(pemRepresentation: text) } else {
                    _ = try Ed25519.PublicKey(pemRepresentation: text)
                }
            }
        }
    }

    @Test func base64AgreesWithFoundationAndIsStrict() throws {
        var rng = SeededRandom(seed: 4648)
        for n in 0..<70 {
            let bytes = rng.bytes(n)
            let text = Base64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString(), "length \(n)")
            #expect(try Base64.decode(Array(text.utf8)) == bytes, "length \(n)")
        }
        let refused: [(String, String)] = [
            ("Zm9", "3 characters of base64 (a multiple of 4 was expected)"),
            ("Zm9v=Zm9", "misplaced `=` at character 5"),
            ("Z===", "misplaced `=` at character 2"),
            ("Zm9v Zm9", "` ` at character 5 is not base64"),
            ("Zh==", "the last base64 character has unused bits set"),
            ("Zm9=", "the last base64 character has unused bits set"),
            ("Zm-v", "`-` at character 3 is not base64"),
        ]
        for (text, message) in refused {
            #expect(throws: Base64Error.self, "\(text)") { try Base64.decode(Array(text.utf8)) }
            do { _ = try Base64.decode(Array(text.utf8)) } catch { #expect(error.message == message, "\(text)") }
        }
        #expect(try Base64.decode(Array("Zg==".utf8)) == [0x66])
        #expect(try Base64.decode(Array("Zm8=".utf8)) == [0x66, 0x6f])
    }
}
