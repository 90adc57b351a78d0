@testable import EntlRuntime
import Testing

/// The words the JSON writer takes without scanning them (`JSONSink.word`) spell the raw values
/// the rest of the library reads, and both writers write them as those strings.
@Suite struct ResultWordsTests {
    @Test func wordsAreTheRawValues() {
        for d in [Decision.allowed, .denied, .undetermined] {
            #expect(d.word.description == d.rawValue)
        }
        for s in EntitlementStatus.allCases {
            #expect(s.word.description == s.rawValue)
        }
        for e in Environment.allCases {
            #expect(e.word.description == e.rawValue)
        }
    }

    @Test func bothWritersWriteAWordAsAString() {
        var bytes = JSONBytes(), tree = JSONTree()
        for sink in 0..<2 {
            func write<S: JSONSink & ~Copyable>(_ s: inout S) {
                s.beginArray()
                s.word("never_purchased")
                s.word("")
                s.string("a")
                s.word("allowed")
                s.endArray()
            }
            if sink == 0 { write(&bytes) } else { write(&tree) }
        }
        let text = bytes.withBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text == #"["never_purchased","","a","allowed"]"#)
        #expect(tree.value.compact == text)
    }
}
