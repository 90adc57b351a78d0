@testable import EntlRuntime
import EntlTestSupport
import Testing

/// `IDIndex`: the first record of each id, against a dictionary, over generated ids whose hashes
/// are forced to collide (a few buckets' worth) and tables that grow while they fill.
@Suite struct IDIndexTests {
    @Test(arguments: [1, 7, 1 << 62])
    func theFirstRecordOfEachIDAsADictionaryKeepsIt(_ buckets: Int) {
        var random = SeededRandom(seed: UInt64(buckets))
        for round in 0..<20 {
            let ids = (0..<random.pick([1, 5, 40, 300])).map { _ in "id-\(Int.random(in: 0..<120, using: &random))" }
            // Hashes of few values, half of them negative: ids of one hash are told apart by their
            // records alone.
            func hash(_ id: String) -> Int {
                Int(truncatingIfNeeded: UInt(bitPattern: id.hashValue) % UInt(buckets)) - buckets / 2
            }
            var index = IDIndex(capacity: round % 2 == 0 ? 0 : ids.count)
            var expected: [String: Int] = [:]
            for (place, id) in ids.enumerated() {
                let first = index.first(hash: hash(id), elseNote: place, isID: { ids[$0] == id })
                #expect(first == expected[id], "\(id) at \(place)")
                if expected[id] == nil { expected[id] = place }
            }
            #expect(index.count == expected.count)
            for (id, place) in expected { #expect(index.first(hash: hash(id), isID: { ids[$0] == id }) == place) }
            #expect(index.first(hash: hash("never"), isID: { ids[$0] == "never" }) == nil)
        }
    }
}
