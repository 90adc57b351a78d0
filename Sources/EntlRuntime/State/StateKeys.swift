/// The keys and enumeration values the decoder matches as bytes.
extension StateReader {
    /// The keys an object may have (at most 64, each at most 16 bytes), matched as bytes: the
    /// candidates of the key's length, each compared as two words.
    struct KeySet: Sendable {
        let names: [String]
        /// The keys as (index in `names`, their bytes as two zero-padded words), by length.
        private let entries: [(index: Int, words: (UInt64, UInt64))]
        /// `entries[starts[n] ..< starts[n + 1]]` are the keys of `n` bytes.
        private let starts: [Int]

        init(_ names: [String]) {
            precondition(names.count <= 64 && names.allSatisfy { $0.utf8.count <= 16 })
            self.names = names
            let sorted = names.indices.sorted { (names[$0].utf8.count, $0) < (names[$1].utf8.count, $1) }
            entries = sorted.map { i in
                Array(names[i].utf8).withUnsafeBufferPointer { (i, ByteBuffer.paddedWords($0.baseAddress, $0.count)) }
            }
            starts = (0...17).map { n in sorted.firstIndex { names[$0].utf8.count >= n } ?? sorted.count }
        }

        /// The keys of an object the common-form decoder reads (`StateLineReader`): fewer than
        /// `KeyOrder.start`, whose slots are an object's start's.
        init(objectKeys names: [String]) {
            precondition(names.count <= KeyOrder.start)
            self.init(names)
        }

        /// The index in `names` of a key read by `scanner`.
        @inline(__always)
        func index(_ key: JSONScanner.StringBytes, in scanner: JSONScanner) -> Int? {
            switch key {
            case .range(let r): index(UnsafeBufferPointer(rebasing: scanner.bytes[r]))
            case .decoded(let d): d.withUnsafeBufferPointer { index($0) }
            }
        }

        func index(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
            guard key.count <= 16 else { return nil }
            return index(ByteBuffer.paddedWords(key.baseAddress, key.count), length: key.count)
        }

        @inline(__always)
        private func index(_ words: (UInt64, UInt64), length: Int) -> Int? {
            for e in starts[length]..<starts[length + 1] where entries[e].words == words { return entries[e].index }
            return nil
        }

        /// The common key, read straight from the bytes (`JSONScanner.shortString`): its index in
        /// `names` (nil for any other key) and its length; else nil (the key is read as any string is).
        @inline(__always)
        func match(at quote: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (index: Int?, length: Int)? {
            guard let (words, length) = JSONScanner.shortString(at: quote, in: bytes) else { return nil }
            return (index(words, length: length), length)
        }
    }

    /// An enumeration's raw values as a key set. They are ASCII without `K`, `;` or a backquote
    /// (the ASCII characters something else is canonically equal to), so matching bytes is
    /// matching strings.
    struct Spellings<T: Sendable>: Sendable {
        let keys: KeySet
        let values: [T]
    }
}

extension StateReader.Spellings where T: RawRepresentable & CaseIterable, T.RawValue == String {
    init() {
        values = Array(T.allCases)
        keys = StateReader.KeySet(values.map(\.rawValue))
    }
}
