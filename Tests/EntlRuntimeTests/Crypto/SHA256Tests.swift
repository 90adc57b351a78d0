import EntlRuntime
import Testing

/// The FIPS 180-4 / NIST CSRC example vectors, and hashing in pieces.
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func standardVectors(message: String, digest: String) {
        #expect(SHA256.hexDigest(Array(message.utf8)) == digest)
    }

    @Test func oneMillionAs() {
        #expect(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the 55/56/64-byte padding boundaries, hashed whole and in uneven pieces.
    @Test func piecesGiveTheSameDigestAsTheWhole() {
        for n in [55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var h = SHA256()
            var i = 0, step = 1
            while i < n {
                h.update(bytes[i..<min(n, i + step)])
                i += step
                step = step % 13 + 1
            }
            #expect(h.finalize() == SHA256.hash(bytes), "length \(n)")
        }
        // 56 bytes needs a second padding block: the known digest of 56 × "a".
        #expect(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 56))
            == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
    }
}
