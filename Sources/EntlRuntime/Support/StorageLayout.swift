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
}
