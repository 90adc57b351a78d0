@testable import EntlRuntime
import EntlTestSupport
import Testing

/// The words short keys are hashed and compared by: `n` bytes, zero-padded, as the words they make
/// in memory order, whatever follows them.
@Suite struct ByteBufferTests {
    @Test func paddedWordsAreTheBytesZeroPadded() {
        var random = SeededRandom(seed: 2026_11_26)
        for _ in 0..<200 {
            let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes.withUnsafeBytes { raw in
                for n in 0...16 {
                    var expected: (UInt64, UInt64) = (0, 0)
                    withUnsafeMutableBytes(of: &expected) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[..<n])) }
                    let words = ByteBuffer.paddedWords(raw.baseAddress, n)
                    #expect(words == expected, "\(n) bytes of \(bytes)")
                    if n <= 8 { #expect(ByteBuffer.paddedWord(raw.baseAddress!, n) == expected.0, "\(n) bytes") }
                }
            }
        }
        #expect(ByteBuffer.paddedWords(nil, 0) == (0, 0))
    }
}
