@testable import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `JSONSink.field`: a member written whole by `JSONBytes` (one reservation for a key and a value
/// of known size) is the key and the value written one after the other, byte for byte, and stays
/// within the room it reserved (a debug build checks each write against it: `ByteBuffer`), from
/// any place in a buffer of any capacity, first in its object or not.
@Suite struct JSONFieldTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300

    /// One member of a generated object.
    enum Member {
        case bool(Bool), int(Int64?), string(String?), instant(Instant?), word(StaticString)
    }

    static let keys: [StaticString] = ["a", "kind", "allowed", "is_active", "store_product_id",
                                       "credits_required", "a_key_longer_than_sixteen_bytes_here"]
    static let words: [StaticString] = ["", "x", "denied", "never_purchased", "billing_retry_and_more"]

    static func member(_ random: inout SeededRandom) -> Member {
        switch random.int(0...4) {
        case 0: return .bool(random.chance(0.5))
        case 1:
            let values: [Int64?] = [nil, 0, 9, 10, -1, .max, .min, random.int64(-1000...1000)]
            return .int(random.pick(values))
        case 2: return .string(random.pick([nil, "", "e0", "quote \" and \\", "é", String(repeating: "z", count: 40)]))
        case 3: return .instant(random.chance(0.3) ? nil : Instant(seconds: random.int64(0...4_000_000_000)))
        default: return .word(random.pick(words))
        }
    }

    static func write<S: JSONSink & ~Copyable>(_ members: [(StaticString, Member)], whole: Bool, to s: inout S) {
        s.beginObject()
        for (key, member) in members {
            if whole {
                switch member {
                case .bool(let v): s.field(key, v)
                case .int(let v): s.field(key, v)
                case .string(let v): s.field(key, v)
                case .instant(let v): s.field(key, v)
                case .word(let v): s.field(key, word: v)
                }
            } else {
                s.key(key)
                switch member {
                case .bool(let v): s.bool(v)
                case .int(let v): s.int(v)
                case .string(let v): s.string(v)
                case .instant(let v): s.instant(v)
                case .word(let v): s.word(v)
                }
            }
        }
        s.endObject()
    }

    @Test func aMemberWrittenWholeIsItsKeyThenItsValue() {
        var random = SeededRandom(seed: 2026_11_27)
        for _ in 0..<Self.cases {
            let members = (0..<random.int(0...6)).map { _ in (random.pick(Self.keys), Self.member(&random)) }
            let prefix = [UInt8](repeating: UInt8(ascii: "p"), count: random.int(0...47))
            let capacity = random.int(1...80)
            var whole = JSONBytes(bytes: prefix, capacity: capacity)
            var apart = JSONBytes(bytes: prefix, capacity: capacity)
            var tree = JSONTree()
            for _ in 0..<random.int(1...3) {  // several lines in one sink, as a batch writes them
                Self.write(members, whole: true, to: &whole)
                whole.endLine()
                Self.write(members, whole: false, to: &apart)
                apart.endLine()
            }
            Self.write(members, whole: true, to: &tree)
            #expect(whole.bytes == apart.bytes)
            let line = String(decoding: whole.bytes.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: "\n") },
                              as: UTF8.self)
            #expect(line == tree.value.compact)
        }
    }
}
