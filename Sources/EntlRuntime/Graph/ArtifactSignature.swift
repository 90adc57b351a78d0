/// Signed rule artifacts. The digest inside an artifact detects corruption, not forgery: anyone
/// can edit the graph and write the new digest. A signature can only be made with the release
/// key, so an app that trusts the release's public key loads only rules its team built.
///
/// `entlc build --sign KEY` writes `FILE.sig` next to `FILE`: one line, the standard base64 of the
/// 64-byte Ed25519 signature over the exact bytes of `FILE`. `RuleGraphArtifact(bytes:signature:
/// trustedKeys:)` checks it before it parses anything.
public enum ArtifactSignature {
    /// The contents of `FILE.sig` for the artifact `bytes`: the base64 of the signature and a newline.
    public static func file(signing bytes: [UInt8], with key: Ed25519.PrivateKey) -> [UInt8] {
        Array((Base64.encode(key.signature(for: bytes)) + "\n").utf8)
    }

    /// The 64 signature bytes in the contents of a signature file: base64, either on one line
    /// (optionally ending in a line break) or wrapped over several, as `base64` writes it.
    public static func signature(inFile contents: [UInt8]) throws(RuleGraphArtifactError) -> [UInt8] {
        var text: [UInt8] = []
        var lines = contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for line in lines {
            let line = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            guard !line.isEmpty else { throw error(emptyLine) }
            text += line
        }
        let bytes: [UInt8]
        do throws(Base64Error) {
            bytes = try Base64.decode(text)
        } catch {
            throw Self.error(notBase64(error.message))
        }
        guard bytes.count == 64 else { throw error(wrongLength(bytes.count)) }
        return bytes
    }

    static func error(_ message: String) -> RuleGraphArtifactError {
        RuleGraphArtifactError(path: "signature", message: message)
    }

    static let emptyLine = "not a signature: an empty line in the signature file"
    static func notBase64(_ reason: String) -> String { "not a signature: \(reason)" }
    static func wrongLength(_ n: Int) -> String { "not a signature: \(n) bytes instead of Ed25519's 64" }
}

/// The public keys an app trusts to sign its rules: during a key rotation, the old key and the new.
public struct TrustedKeys: Sendable {
    public var keys: [Ed25519.PublicKey]

    public init(_ keys: [Ed25519.PublicKey]) { self.keys = keys }

    /// Keys as the PEM text of `KEY.pub` files (`-----BEGIN PUBLIC KEY-----`), e.g. pinned in the app.
    public init(pemRepresentations: [String]) throws(KeyFormatError) {
        var keys: [Ed25519.PublicKey] = []
        for text in pemRepresentations { keys.append(try Ed25519.PublicKey(pemRepresentation: text)) }
        self.keys = keys
    }

    /// The key that signed `bytes`, given the contents of the signature file (nil when there is
    /// none). Refuses a missing or malformed signature and one that no trusted key made — which is
    /// also what any change to the bytes gives. With no keys at all, nothing is trusted.
    public func signer(of bytes: [UInt8], signature: [UInt8]?) throws(RuleGraphArtifactError) -> Ed25519.PublicKey {
        guard !keys.isEmpty else { throw ArtifactSignature.error(Self.noKeys) }
        guard let signature else { throw ArtifactSignature.error(Self.unsigned) }
        let raw = try ArtifactSignature.signature(inFile: signature)
        guard let key = keys.first(where: { $0.isValidSignature(raw, for: bytes) }) else {
            throw ArtifactSignature.error(Self.notTrusted(keys.count))
        }
        return key
    }

    static let noKeys = "no trusted keys were given, so no signature can be accepted"
    static let unsigned = "the artifact is not signed (no signature file)"
    static func notTrusted(_ count: Int) -> String {
        "the signature is not valid for \(count == 1 ? "the trusted key" : "any of the \(count) trusted keys"): "
            + "the artifact was changed after it was signed, or signed with another key"
    }
}

extension RuleGraphArtifact {
    /// Loads an artifact only if one of `trustedKeys` signed its exact bytes (`signature`: the
    /// contents of `FILE.sig`, nil when there is none), then checks it as `init(bytes:)` does.
    /// The signature is checked first, so nothing of an untrusted file is parsed. A signature error
    /// has the path `signature`.
    public init(bytes: [UInt8], signature: [UInt8]?, trustedKeys: TrustedKeys) throws(RuleGraphArtifactError) {
        _ = try trustedKeys.signer(of: bytes, signature: signature)
        try self.init(bytes: bytes)
    }
}
