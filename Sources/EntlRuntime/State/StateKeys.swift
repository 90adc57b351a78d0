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
            quoted = names.map { name in
                let n = name.utf8.count + 1  // the key and its closing quote
                guard n <= 16 else { return ((0, 0), (0, 0), 0) }  // never matched: the mask is 0
                let words = Array(name.utf8 + [UInt8(ascii: "\"")]).withUnsafeBufferPointer {
                    ByteBuffer.paddedWords($0.baseAddress, n)
                }
                let ones = [UInt8](repeating: 0xFF, count: n)
                let mask = ones.withUnsafeBufferPointer { ByteBuffer.paddedWords($0.baseAddress, n) }
                return (words, mask, n)
            }
        }

        /// Per key, its bytes and closing quote as two zero-padded words, the mask of those bytes
        /// and their number; a key of 16 bytes has a mask of 0 (its quote is past two words).
        private let quoted: [(words: (UInt64, UInt64), mask: (UInt64, UInt64), count: Int)]

        /// Whether key `k` is the key whose opening quote is followed by `words` (the next 16
        /// bytes): they start with its bytes and closing quote. Then the bytes from the opening
        /// quote to past the closing one; else nil.
        @inline(__always)
        func matches(_ k: Int, _ words: (UInt64, UInt64)) -> Int? {
            let q = quoted[k]
            guard q.mask.0 != 0, words.0 & q.mask.0 == q.words.0, words.1 & q.mask.1 == q.words.1 else { return nil }
            return q.count + 1
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
