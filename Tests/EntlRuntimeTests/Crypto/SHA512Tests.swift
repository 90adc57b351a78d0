import EntlRuntime
import EntlTestSupport
import Testing

/// The FIPS 180-4 / NIST CSRC example vectors of SHA-512, and hashing in pieces.
@Suite struct SHA512Tests {
    @Test(arguments: [
        ("", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
            + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
            + "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
            + "lmnopqrsmnopqrstnopqrstu",
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
            + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ])
    func standardVectors(message: String, digest: String) {
        #expect(hexString(SHA512.hash(Array(message.utf8))) == digest)
    }

    @Test func oneMillionAs() {
        #expect(hexString(SHA512.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
            + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    /// Lengths around the 111/112/128-byte padding boundaries, hashed whole and in uneven pieces,
    /// and as a sequence that is not contiguous.
    @Test func piecesGiveTheSameDigestAsTheWhole() {
        for n in [0, 1, 111, 112, 113, 127, 128, 129, 239, 240, 256, 1000] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var h = SHA512()
            for piece in unevenPieces(of: bytes) { h.update(piece) }
            let whole = SHA512.hash(bytes)
            #expect(h.finalize() == whole, "length \(n)")
            #expect(SHA512.hash(bytes.lazy.map { $0 }) == whole, "length \(n), not contiguous")
        }
        // 112 bytes needs a second padding block: the digest of 112 × "a" (Python's hashlib).
        #expect(hexString(SHA512.hash([UInt8](repeating: UInt8(ascii: "a"), count: 112)))
            == "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32"
            + "bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca")
    }
}
