#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte offsets of typed tables in one allocation, each aligned for its type.
struct StorageLayout {
    private(set) var size = 0
    private(set) var alignment = 1

    mutating func place<T>(_: T.Type, _ count: Int) -> Int {
        let a = MemoryLayout<T>.alignment
        let offset = (size + a - 1) & ~(a - 1)
        size = offset + MemoryLayout<T>.stride * count
        alignment = max(alignment, a)
        return offset
    }

    /// A block of `byteCount` bytes aligned to `alignment`, freed with `release`. The C allocator's
    /// blocks are aligned for any scalar (16 bytes), which every table here needs at most; the
    /// standard library's `allocate` asks for an aligned allocation instead (`posix_memalign` on
    /// Linux: about three times the cost of `malloc`, once per evaluation).
    static func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        precondition(alignment <= 16, "an alignment above 16 bytes")
        guard let block = malloc(max(byteCount, 1)) else { fatalError("out of memory") }
        return block
    }

    static func release(_ block: UnsafeMutableRawPointer) {
        free(block)
    }
}
