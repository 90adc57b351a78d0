@testable import EntlRuntime
import EntlTestSupport
import Testing

/// The words short keys are hashed and compared by: `n` bytes, zero-padded, as the words they make
/// in memory order, whatever follows them.
@Suite struct ByteBufferTests {
    /// Each key alone in an allocation of its size (a read past it is then outside the block, which
    /// the address sanitizer and valgrind report), and again followed by random bytes (which must
    /// not show in its words).
    @Test func paddedWordsAreTheBytesZeroPadded() {
        var random = SeededRandom(seed: 2026_11_26)
        for _ in 0..<200 {
            let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &random) }
            for n in 0...16 {
                var expected: (UInt64, UInt64) = (0, 0)
                withUnsafeMutableBytes(of: &expected) { target in
                    bytes.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
                }
                let alone = UnsafeMutableRawPointer.allocate(byteCount: max(n, 1), alignment: 1)
                defer { alone.deallocate() }
                bytes.withUnsafeBytes { alone.copyMemory(from: $0.baseAddress!, byteCount: n) }
                #expect(ByteBuffer.paddedWords(alone, n) == expected, "\(n) bytes of \(bytes)")
                bytes.withUnsafeBytes { #expect(ByteBuffer.paddedWords($0.baseAddress, n) == expected, "\(n) bytes") }
                if n <= 8 {
                    #expect(ByteBuffer.paddedWord(alone, n) == expected.0, "\(n) bytes")
                    bytes.withUnsafeBytes { #expect(ByteBuffer.paddedWord($0.baseAddress!, n) == expected.0) }
                }
            }
        }
        #expect(ByteBuffer.paddedWords(nil, 0) == (0, 0))
    }
}
