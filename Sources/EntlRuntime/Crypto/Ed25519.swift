/// Ed25519 signatures (RFC 8032 §5.1), for signed rule artifacts: CI signs what it builds, the app
/// accepts only what a key it trusts signed. The runtime's own implementation (no Foundation, no
/// CryptoKit, no package), named after CryptoKit's `Curve25519.Signing` so it reads the same.
///
/// Signing is constant time: the secret scalar and nonce go only through fixed sequences of field
/// operations and mask-selected table entries (`EdwardsPoint.baseMultiple`, `Scalar25519`).
/// Verification handles public values only and may take variable time.
///
/// Verification is *cofactorless*, `[S]B = R + [k]A` (RFC 8032 §5.1.7 allows either equation; this
/// is also what OpenSSL and the PyPI `cryptography` package check, so the three agree on every
/// signature by a key that is not of small order), and strict: S must be below L, A must be the
/// canonical encoding of a point that is not of small order (OpenSSL and `cryptography` accept
/// those keys, and with them signatures that hold for any message), and R must be the canonical
/// encoding of exactly `[S]B − [k]A` (the check compares encodings, so a non-canonical or invalid R
/// never matches).
public enum Ed25519 {
    /// A public key: 32 bytes, the encoding of the point A.
    public struct PublicKey: Sendable, Hashable {
        public let rawRepresentation: [UInt8]
        let point: EdwardsPoint

        /// Refuses what is not the canonical encoding of a curve point, and the eight points of small
        /// order (for which anyone can make signatures that verify).
        public init(rawRepresentation bytes: [UInt8]) throws(KeyFormatError) {
            guard bytes.count == 32 else { throw KeyFormatError(Self.wrongLength(bytes.count)) }
            guard let point = bytes.withUnsafeBytes({ EdwardsPoint(encoding: $0) }) else {
                throw KeyFormatError(Self.notAPoint)
            }
            guard !point.hasSmallOrder else { throw KeyFormatError(Self.smallOrder) }
            rawRepresentation = bytes
            self.point = point
        }

        init(point: EdwardsPoint) {
            self.point = point
            rawRepresentation = point.encoding
        }

        /// Whether `signature` (64 bytes) is this key's signature of `message`.
        public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            guard signature.count == 64 else { return false }
            let r = Array(signature[0..<32]), s = Array(signature[32..<64])
            guard Scalar25519.isCanonical(s) else { return false }
            let k = Ed25519.challenge(r, rawRepresentation, message)
            let check = EdwardsPoint.baseMultiple(s) + EdwardsPoint.multiple(of: point.negated, by: k).cached
            return check.encoding == r
        }

        public static func == (a: PublicKey, b: PublicKey) -> Bool { a.rawRepresentation == b.rawRepresentation }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }

        static func wrongLength(_ n: Int) -> String { "an Ed25519 public key has 32 bytes, not \(n)" }
        static let notAPoint = "the public key is not a point of edwards25519"
        static let smallOrder = "the public key is a point of small order, which no signer has"
    }

    /// A private key: the 32-byte seed of RFC 8032 (what PKCS#8 files hold), with the scalar and
    /// the nonce prefix expanded from it once.
    public struct PrivateKey: Sendable {
        public let rawRepresentation: [UInt8]
        public let publicKey: PublicKey
        /// The clamped secret scalar s and the prefix that makes the nonce (§5.1.5).
        private let scalar: [UInt8], prefix: [UInt8]

        public init(rawRepresentation seed: [UInt8]) throws(KeyFormatError) {
            guard seed.count == 32 else {
                throw KeyFormatError("an Ed25519 private key has 32 bytes, not \(seed.count)")
            }
            let h = SHA512.hash(seed)
            var s = Array(h[0..<32])
            s[0] &= 248
            s[31] &= 127
            s[31] |= 64
            rawRepresentation = seed
            scalar = s
            prefix = Array(h[32..<64])
            publicKey = PublicKey(point: EdwardsPoint.baseMultiple(s))
        }

        /// The 64-byte signature of `message` (deterministic: the same key and message always give
        /// the same bytes).
        public func signature(for message: [UInt8]) -> [UInt8] {
            var nonceHash = SHA512()
            nonceHash.update(prefix)
            nonceHash.update(message)
            let r = Scalar25519.reduce(nonceHash.finalize())
            let encodedR = EdwardsPoint.baseMultiple(r).encoding
            let k = Ed25519.challenge(encodedR, publicKey.rawRepresentation, message)
            return encodedR + Scalar25519.multiplyAdd(k, scalar, r)
        }
    }

    /// k = SHA-512(R ‖ A ‖ M) mod L.
    static func challenge(_ r: [UInt8], _ a: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var h = SHA512()
        h.update(r)
        h.update(a)
        h.update(message)
        return Scalar25519.reduce(h.finalize())
    }
}

/// Why bytes or text are not a usable key: one line, no final period, no place.
public typealias KeyFormatError = InputError<Ed25519>
