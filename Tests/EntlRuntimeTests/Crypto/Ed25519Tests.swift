@testable import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// Ed25519 (RFC 8032 §5.1) against the five tests of RFC 8032 §7.1, the edge cases of
/// "Taming the many EdDSAs" (Chalkias, Garillot, Nikolaenko 2020), and what verification must refuse.
@Suite struct Ed25519Tests {
    @Test func rfc8032VectorsSignAndVerify() throws {
        let vectors = try rfc8032Vectors()
        #expect(vectors.map(\.name) == ["1", "2", "3", "1024", "SHA(abc)"])
        #expect(vectors.map(\.message.count) == [0, 1, 2, 1023, 64])
        for v in vectors {
            let key = try Ed25519.PrivateKey(rawRepresentation: v.secretKey)
            #expect(key.publicKey.rawRepresentation == v.publicKey, "\(v)")
            #expect(key.signature(for: v.message) == v.signature, "\(v)")
            let publicKey = try Ed25519.PublicKey(rawRepresentation: v.publicKey)
            #expect(publicKey.isValidSignature(v.signature, for: v.message), "\(v)")
        }
    }

    /// Every single-bit change of a signature, its message or its key is refused.
    @Test func everyFlippedBitIsRefused() throws {
        let v = try rfc8032Vectors()[2]  // TEST 3: a 2-byte message
        let key = try Ed25519.PublicKey(rawRepresentation: v.publicKey)
        for bit in 0..<(64 * 8) {
            var signature = v.signature
            signature[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!key.isValidSignature(signature, for: v.message), "signature bit \(bit)")
        }
        for bit in 0..<(v.message.count * 8) {
            var message = v.message
            message[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!key.isValidSignature(v.signature, for: message), "message bit \(bit)")
        }
        for bit in 0..<(32 * 8) {
            var bytes = v.publicKey
            bytes[bit / 8] ^= 1 << UInt8(bit % 8)
            // A changed key is either no key at all or a key that did not make this signature.
            guard let changed = try? Ed25519.PublicKey(rawRepresentation: bytes) else { continue }
            #expect(!changed.isValidSignature(v.signature, for: v.message), "key bit \(bit)")
        }
        #expect(!key.isValidSignature(Array(v.signature.dropLast()), for: v.message))
        #expect(!key.isValidSignature(v.signature + [0], for: v.message))
        #expect(!key.isValidSignature(v.signature, for: v.message + [0]))
    }

    /// S + L satisfies the same group equation as S, so only the range check refuses it.
    @Test func aScalarNotBelowTheOrderIsRefused() throws {
        let v = try rfc8032Vectors()[0]
        let key = try Ed25519.PublicKey(rawRepresentation: v.publicKey)
        let order = hexBytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var s = Array(v.signature[32...]), carry = 0
        for i in 0..<32 {
            let sum = Int(s[i]) + Int(order[i]) + carry
            s[i] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        #expect(carry == 0 && s[31] < 0x80)
        #expect(!key.isValidSignature(Array(v.signature[..<32]) + s, for: v.message))
        #expect(!key.isValidSignature(Array(v.signature[..<32]) + order, for: v.message))
        #expect(!key.isValidSignature(Array(v.signature[..<32]) + [UInt8](repeating: 0xff, count: 32), for: v.message))
        #expect(Scalar25519.isCanonical(Scalar25519.reduce(order + order)))
        #expect(Scalar25519.reduce(order) == [UInt8](repeating: 0, count: 32))
    }

    /// The scalar arithmetic at its carries and borrows, against Python's integers.
    @Test func scalarsModuloTheOrderAtTheEdges() {
        let ones = [UInt8](repeating: 0xff, count: 32)
        let lMinusOne = hexBytes("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        #expect(hexString(Scalar25519.reduce(ones + ones))
            == "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903")
        #expect(hexString(Scalar25519.multiplyAdd(ones, ones, ones))
            == "d14df91389432c25ad60ff9791b9fd1d67bef517d273ecce3d9a307c1b419903")
        #expect(Scalar25519.multiplyAdd(lMinusOne, lMinusOne, lMinusOne) == [UInt8](repeating: 0, count: 32))
        #expect(Scalar25519.reduce(lMinusOne + [UInt8](repeating: 0, count: 32)) == lMinusOne)
        var top = [UInt8](repeating: 0, count: 32), five = [UInt8](repeating: 0, count: 32)
        top[31] = 0x20  // 2^253
        five[0] = 5
        #expect(hexString(Scalar25519.multiplyAdd(Array(ones.dropLast()) + [0x7f], top, five))
            == "826a1e0e75cbf186b4ce81cc40211895e65b7f213dc7eedca309c3b71194390b")
        #expect(Scalar25519.isCanonical(lMinusOne) && !Scalar25519.isCanonical(ones))
    }

    /// y ≥ p is never a key, even where y − p is a good one; nor x = 0 with the sign bit set.
    @Test func nonCanonicalPointEncodingsAreRefused() throws {
        func encoding(_ y: UInt64, sign: Bool = false, plusP: Bool = false) -> [UInt8] {
            var bytes = (0..<32).map { UInt8(truncatingIfNeeded: y >> UInt64(8 * min($0, 8))) & ($0 < 8 ? 0xff : 0) }
            if plusP {  // y + p = y + 2^255 − 19, for y < 19
                bytes = hexBytes("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
                var carry = Int(y)
                for i in 0..<32 {
                    let sum = Int(bytes[i]) + carry
                    bytes[i] = UInt8(sum & 0xff)
                    carry = sum >> 8
                }
            }
            if sign { bytes[31] |= 0x80 }
            return bytes
        }
        // Every y in 0..<19 that is a point at all: its canonical encoding decodes, y + p does not.
        var points = 0
        for y in UInt64(0)..<19 {
            for sign in [false, true] {
                let canonical = encoding(y, sign: sign).withUnsafeBytes { EdwardsPoint(encoding: $0) }
                let shifted = encoding(y, sign: sign, plusP: true).withUnsafeBytes { EdwardsPoint(encoding: $0) }
                #expect(shifted == nil, "y = \(y) + p")
                if canonical != nil { points += 1 }
            }
        }
        #expect(points > 4)
        // y = 1 is the identity (x = 0): the sign bit makes it −0, which is not an encoding.
        #expect(encoding(1).withUnsafeBytes { EdwardsPoint(encoding: $0) } != nil)
        #expect(encoding(1, sign: true).withUnsafeBytes { EdwardsPoint(encoding: $0) } == nil)
        // A large-order point whose y is below 19, and the same point written with y + p.
        let large = try #require((UInt64(2)..<19).first { y in
            encoding(y).withUnsafeBytes { EdwardsPoint(encoding: $0) }.map { !$0.hasSmallOrder } ?? false
        })
        #expect((try? Ed25519.PublicKey(rawRepresentation: encoding(large))) != nil)
        #expect(throws: KeyFormatError(Ed25519.PublicKey.notAPoint)) {
            try Ed25519.PublicKey(rawRepresentation: encoding(large, plusP: true))
        }
        // And a signature whose R is written that way never verifies.
        let v = try rfc8032Vectors()[0]
        let key = try Ed25519.PublicKey(rawRepresentation: v.publicKey)
        #expect(!key.isValidSignature(encoding(large, plusP: true) + v.signature[32...], for: v.message))
    }

    @Test func keysOfSmallOrderAndWrongLengthsAreRefused() throws {
        // The identity (y = 1) and (0, −1), both of small order.
        let identity = [1] + [UInt8](repeating: 0, count: 31)
        let minusOne = hexBytes("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        for bytes in [identity, minusOne] {
            #expect(throws: KeyFormatError(Ed25519.PublicKey.smallOrder)) {
                try Ed25519.PublicKey(rawRepresentation: bytes)
            }
        }
        #expect(throws: KeyFormatError("an Ed25519 public key has 32 bytes, not 31")) {
            try Ed25519.PublicKey(rawRepresentation: Array(identity.dropLast()))
        }
        #expect(throws: KeyFormatError("an Ed25519 private key has 32 bytes, not 64")) {
            try Ed25519.PrivateKey(rawRepresentation: identity + identity)
        }
    }

    /// The vectors of "Taming the many EdDSAs" (ed25519-speccheck): OpenSSL accepts 0, 1, 2 and 3;
    /// we accept 2 and 3, refusing the keys of small order in 0 and 1 (Tests/Crypto cross-checks
    /// that against the PyPI `cryptography` package).
    @Test func edgeCasesOfTamingTheManyEdDSAs() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: repoPath("Tests/Fixtures/crypto/speccheck-cases.json")))
        let cases = try #require(JSONSerialization.jsonObject(with: data) as? [[String: String]])
        #expect(cases.count == 10)
        var accepted: [Int] = []
        for (i, c) in cases.enumerated() {
            guard let key = try? Ed25519.PublicKey(rawRepresentation: hexBytes(c["pub_key"]!)) else { continue }
            if key.isValidSignature(hexBytes(c["signature"]!), for: hexBytes(c["message"]!)) { accepted.append(i) }
        }
        #expect(accepted == [2, 3])
    }

    /// Signing and verifying agree on generated keys and messages (seeded), and the constant-time
    /// base multiplication agrees with the plain one.
    @Test func generatedKeysSignAndVerify() throws {
        var rng = SeededRandom(seed: 8032)
        for n in [0, 1, 31, 64, 111, 112, 127, 128, 129, 300] {
            let key = try Ed25519.PrivateKey(rawRepresentation: rng.bytes(32))
            let message = rng.bytes(n)
            let signature = key.signature(for: message)
            #expect(key.publicKey.isValidSignature(signature, for: message))
            #expect(key.signature(for: message) == signature)
            let other = try Ed25519.PrivateKey(rawRepresentation: rng.bytes(32))
            #expect(!other.publicKey.isValidSignature(signature, for: message))
            let scalar = rng.bytes(31) + [rng.bytes(1)[0] & 0x7f]
            #expect(EdwardsPoint.baseMultiple(scalar).encoding == EdwardsPoint.multiple(of: .base, by: scalar).encoding)
        }
    }
}
