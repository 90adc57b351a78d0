import EntlRuntime
import EntlTestSupport
import Foundation
import Synchronization
import Testing

/// `StateLineReader`, the common form's decoder, against the general decoder it stands in for:
/// whatever it accepts decodes there to an equal state with no warning, and whatever it declines
/// it leaves blank (the general decoder then reads it, errors and warnings included).
@Suite struct StateLineReaderTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300

    /// What both decoders made of one input.
    struct Outcome {
        var accepted: Bool
        var fast: PurchaseState
        var general: Result<PurchaseState, StateError>
    }

    /// `order`: the order of keys learned from the inputs before (a batch's), none by default.
    static func decode(_ text: String, _ options: StateDecodingOptions) -> Outcome {
        var order = KeyOrder()
        return decode(text, options, order: &order)
    }

    static func decode(_ text: String, _ options: StateDecodingOptions, order: inout KeyOrder) -> Outcome {
        let bytes = Array(text.utf8)
        var fast = PurchaseState()
        let accepted = bytes.withUnsafeBufferPointer {
            StateLineReader.read($0, into: &fast, options: options, order: &order)
        }
        var general = PurchaseState()
        let result = Result { () throws(StateError) in
            try general.readInFull(json: bytes[...], options: options)
            return general
        }
        return Outcome(accepted: accepted, fast: fast, general: result)
    }

    /// The property, for one input: an accepted input is a valid state, decoded alike, with no
    /// warning; a declined one leaves the state blank.
    static func check(_ text: String, _ options: StateDecodingOptions, order: inout KeyOrder) -> Bool {
        let o = decode(text, options, order: &order)
        guard o.accepted else {
            #expect(o.fast == PurchaseState() && o.fast.warnings.isEmpty, "declined but not blank: \(text)")
            return false
        }
        switch o.general {
        case .success(let general):
            #expect(o.fast == general, "decoded differently: \(text)")
            #expect(general.warnings.isEmpty && o.fast.warnings.isEmpty, "accepted with warnings: \(text)")
        case .failure(let error):
            Issue.record("accepted what the general decoder refuses (\(error)): \(text)")
        }
        return true
    }

    /// Generated states in the common form and near it (each kind of value written in forms the
    /// reader takes and forms it must leave to the general decoder), and each of them mutated a
    /// byte or a slice at a time: the property holds for every input, and most unmutated inputs
    /// are accepted (the reader is not declining everything). The inputs are read one after the
    /// other with the order of keys learned from those before, as a batch's lines are: half of
    /// them give their keys in one order (the prediction mostly holds), half in any order (it
    /// mostly fails, on keys that share a prefix among others).
    @Test func whatItAcceptsTheGeneralDecoderDecodesAlike() {
        var (clean, cleanAccepted, mutatedAccepted) = (0, 0, 0)
        var order = KeyOrder()
        for k in 0..<Self.cases {
            // Every other state in the common form throughout, the others with odd values.
            var g = StateTextGenerator(r: SeededRandom(seed: 2026_11_26_000 + UInt64(k)), oddity: k % 2 == 0 ? 0 : 1)
            let text = g.state()
            var options = StateDecodingOptions()
            if g.r.chance(0.5) { options.names = StateNames(StateTextGenerator.names) }
            if g.r.chance(0.1) { options.limits = StateLimits(purchases: 1, usageRecords: 2, grants: 1) }
            let accepted = Self.check(text, options, order: &order)
            if g.oddity == 0 {
                clean += 1
                if accepted { cleanAccepted += 1 }
            }
            for _ in 0..<8 where Self.check(g.mutate(text), options, order: &order) { mutatedAccepted += 1 }
        }
        // Declined in the common form: only past a limit, or a string that is `null` where one
        // is required.
        #expect(cleanAccepted * 10 >= clean * 8, "only \(cleanAccepted) of \(clean) common states were accepted")
        #expect(mutatedAccepted > 0)
    }

    /// States read one after another into one scratch's state, each into the places of the
    /// purchases and usage records of the state before (as a batch's lines are), decode as each
    /// does alone: no field of a place keeps what the state before put there (a record's `at`,
    /// `id` or kind, a purchase's `store`), whichever decoder reads it.
    @Test func statesReadIntoThePlacesOfTheOnesBeforeDecodeAsAlone() {
        var scratch = EvaluationScratch()
        var compared = 0
        for k in 0..<Self.cases {
            var g = StateTextGenerator(r: SeededRandom(seed: 2026_11_28_000 + UInt64(k)), oddity: k % 3 == 0 ? 1 : 0)
            let text = g.state()
            for text in [text, g.mutate(text)] {
                let bytes = Array(text.utf8)
                let alone = Result { () throws(StateError) in try PurchaseState(json: bytes) }
                let inPlace = Result { () throws(StateError) in
                    try scratch.read(json: bytes[...])
                    return scratch.state
                }
                switch (alone, inPlace) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "decoded differently in place: \(text)")
                    compared += 1
                case (.failure(let a), .failure(let b)):
                    #expect("\(a)" == "\(b)", "refused differently in place: \(text)")
                default:
                    Issue.record("decoded one way only: \(text)")
                }
            }
        }
        #expect(compared > Self.cases / 2)
    }

    /// The benchmark's kind of line is read by this reader (not left to the general decoder), and
    /// every value in it is as written.
    @Test func aTrackersLineIsReadInFull() throws {
        let line = #"{"customer": "c0", "now": "2026-11-22T12:00:00Z", "purchases": [{"product": "p6", "#
            + #""status": "expired", "purchased_at": "2026-04-27T10:00:00Z", "expires_at": "2026-12-27T10:00:00Z"}, "#
            + #"{"product": "com.bench.p3", "store": "app_store", "status": "past_due", "grace_until": null, "#
            + #""will_renew": false, "quantity": 3, "ownership": "family_shared", "environment": "test"}], "#
            + #""usage": [{"feature": "f5", "amount": 756, "at": "2026-11-07T08:00:00Z", "id": "u1"}, "#
            + #"{"event": "f7", "level": 0}]}"#
        let o = Self.decode(line, StateDecodingOptions())
        #expect(o.accepted)
        let s = o.fast
        #expect(s.customer == "c0" && s.now == Instant(rfc3339: "2026-11-22T12:00:00Z"))
        #expect(s.purchases == [
            Purchase(product: "p6", status: .expired, purchasedAt: Instant(rfc3339: "2026-04-27T10:00:00Z"),
                     expiresAt: Instant(rfc3339: "2026-12-27T10:00:00Z")),
            Purchase(product: "com.bench.p3", store: "app_store", status: .pastDue, willRenew: false,
                     ownership: .familyShared, quantity: 3, environment: .test),
        ])
        #expect(s.usage == [
            UsageRecord(feature: "f5", kind: .amount(756), at: Instant(rfc3339: "2026-11-07T08:00:00Z"), id: "u1"),
            UsageRecord(event: "f7", kind: .level(0)),
        ])
        #expect(try PurchaseState(json: line) == s)
    }

    /// An object's start has slots of its own: bytes learned before an object's first key are not
    /// taken for those after any key (an object's keys are fewer than `KeyOrder.start`: its key
    /// sets are made with `KeySet(objectKeys:)`, which checks it; else what follows the 16th key
    /// would share the start's slots, and `{"product": ` be read as a key after its value).
    @Test func anObjectsStartHasSlotsOfItsOwn() {
        let order = KeyOrder()
        let view = order.view
        let bytes = Array(#"{"product": "p0", "store": "s"}"#.utf8) + [UInt8](repeating: 0x20, count: 24)
        bytes.withUnsafeBytes { raw in
            let p = raw.baseAddress!
            view.learn(0, after: KeyOrder.start, in: .purchase, p, count: 12, available: raw.count)
            let found = view.template(after: KeyOrder.start, in: .purchase, at: p, available: raw.count)
            #expect(found?.key == 0 && found?.length == 12)
            for k in 0..<KeyOrder.start {
                #expect(view.template(after: k, in: .purchase, at: p, available: raw.count) == nil, "after key \(k)")
            }
            #expect(view.template(after: KeyOrder.start, in: .state, at: p, available: raw.count) == nil)
            // Fewer bytes left than the template holds: no match.
            #expect(view.template(after: KeyOrder.start, in: .purchase, at: p, available: 11) == nil)
        }
    }

    /// A state decoded alone (`PurchaseState(json:)`) reads with the slots the one before left
    /// (`KeyOrder.reused`), taken by one thread at a time: states decoded alone on several threads
    /// at once, each with templates learned from others, decode as the general decoder reads them.
    @Test func statesDecodedAloneOnManyThreadsDecodeAlike() {
        let texts = (0..<400).map { k in
            var g = StateTextGenerator(r: SeededRandom(seed: 2026_11_27_000 + UInt64(k)), oddity: k % 3 == 0 ? 1 : 0)
            let text = g.state()
            return k % 2 == 0 ? text : g.mutate(text)
        }
        let expected = texts.map { text in
            Result { () throws(StateError) in
                var state = PurchaseState()
                try state.readInFull(json: Array(text.utf8)[...], options: StateDecodingOptions())
                return state
            }
        }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<5 {
                for k in texts.indices where (k + worker + round) % 2 == 0 {
                    let decoded = Result { () throws(StateError) in try PurchaseState(json: texts[k]) }
                    if decoded != expected[k] { mismatches.withLock { $0 += 1 } }
                }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    /// The bytes learned before each key (`KeyOrder`) only make that key be tried first: a key
    /// that starts like the one predicted (`customer_since` after `customer`), one near the end of
    /// the input or cut short there, other whitespace, keys in another order or unknown ones are
    /// read as they are without a prediction.
    @Test func aLearnedOrderNeverMisreadsAKey() {
        var order = KeyOrder()
        let taught = #"{"customer": "c0", "now": "2026-11-22T12:00:00Z", "purchases": [{"product": "p0", "#
            + #""status": "active", "expires_at": "2026-12-01T00:00:00Z"}], "usage": [{"feature": "f1", "amount": 1}]}"#
        for _ in 0..<3 { #expect(Self.check(taught, StateDecodingOptions(), order: &order)) }
        let lines = [
            #"{"customer_since": "2026-01-01T00:00:00Z", "customer": "c1", "nowx": 1}"#,
            #"{"customer": "c2", "now": "2026-11-22T12:00:00Z", "purchases": [{"product": "p0", "#
                + #""status_": "active", "expires": "2026-12-01T00:00:00Z"}]}"#,
            #"{"customer": "c3", "now_": "2026-11-22T12:00:00Z"}"#,
            #"{"customer": "c4", "now": null, "usage": [{"feature": "f1", "amount": 2, "at": null}], "#
                + #""purchases": [{"status": "expired", "product": "p1", "expires_at": null}]}"#,
            #"{"customer": "c5", "now": "2026-11-22T12:00:00Z", "purchases": [{"product": "p0", "status": "active", "#
                + #""expires_at": "2026-12-01T00:00:00Z", "expires_at": null}]}"#,
            #"{"customer":"c6","now":"2026-11-22T12:00:00Z","purchases":[{"product":"p0","status":"active"}]}"#,
            // The learned bytes before `usage` near the end (fewer than three words left), and cut short.
            #"{"customer": "c7", "now": "2026-11-22T12:00:00Z", "usage": []}"#,
            #"{"customer": "c8", "now": "2026-11-22T12:00:00Z", "usage"#,
            #"{"customer": "c9", "now": "2026-11-22T12:00:00Z", "usage": "#,
            // Other whitespace around learned keys, and a key the learned one is a prefix of.
            #"{"customer": "c10",  "now": "2026-11-22T12:00:00Z", "purchases": [{ "product": "p0"}]}"#,
            #"{"customer": "c11", "now" : "2026-11-22T12:00:00Z", "purchases": [{"product": "p0", "statusx": 1}]}"#,
        ]
        for line in lines {
            var fresh = KeyOrder()
            let learned = Self.decode(line, StateDecodingOptions(), order: &order)
            let unlearned = Self.decode(line, StateDecodingOptions(), order: &fresh)
            #expect(learned.accepted == unlearned.accepted, "\(line)")
            #expect(learned.fast == unlearned.fast, "\(line)")
            _ = Self.check(line, StateDecodingOptions(), order: &order)
        }
    }

    /// What it leaves to the general decoder, each for its own reason.
    @Test(arguments: [
        #"{"customer": "c\u0030"}"#,  // an escape
        #"{"customer": "é"}"#,  // past ASCII
        #"{"overrides": {"p": "purchased"}}"#,  // a key it does not read
        #"{"customr": "c"}"#,  // an unknown key (a warning)
        #"{"customer": "a", "customer": "b"}"#,  // a repeated key (an error)
        #"{"now": "2026-11-22T12:00:00.5Z"}"#,  // a fraction of a second
        #"{"now": "2026-11-22T13:00:00+01:00"}"#,  // an offset
        #"{"now": "2026-02-29T00:00:00Z"}"#,  // no such day (an error)
        #"{"usage": [{"feature": "f", "amount": 1.0}]}"#,  // not plain digits
        #"{"usage": [{"feature": "f", "amount": 1e2}]}"#,
        #"{"usage": [{"feature": "f", "amount": 01}]}"#,  // a leading zero (an error)
        #"{"usage": [{"feature": "f", "amount": 1000000000000001}]}"#,  // over 10^15 (an error)
        #"{"usage": [{"feature": "f", "amount": 1, "level": 1}]}"#,  // both (an error)
        #"{"purchases": [{"status": "active"}]}"#,  // no product (an error)
        #"{"purchases": [{"product": "p", "status": "Active"}]}"#,  // an unknown status (an error)
        #"{"purchases": [{"product": "p"},]}"#,  // a trailing comma (an error)
        #"{"customer": "c"} x"#,  // something after the state (an error)
        #"{"customer": nul}"#,
        #"[]"#,
    ])
    func itLeavesTheRestToTheGeneralDecoder(_ text: String) {
        let o = Self.decode(text, StateDecodingOptions())
        #expect(!o.accepted)
        #expect(o.fast == PurchaseState())
    }

    /// Every example state decodes the same whichever decoder reads it.
    @Test(arguments: ["api", "crossplatform", "photos", "subscriptions"])
    func everyExampleStateDecodesTheSame(_ example: String) throws {
        let json = try readRepoFile("examples/\(example).state.json")
        var general = PurchaseState()
        try general.readInFull(json: Array(json.utf8)[...], options: StateDecodingOptions())
        #expect(try PurchaseState(json: json) == general)
    }
}

/// State texts for the property above: the common form with its variations and, at a rate of
/// `oddity`, values and keys that leave it (some valid, some not).
struct StateTextGenerator {
    static let names = ["p0", "p1", "com.bench.p3", "price_p0", "app_store", "stripe", "f1", "f5", "credits0"]

    var r: SeededRandom
    let oddity: Double

    mutating func odd(_ rate: Double = 0.1) -> Bool { r.chance(rate * oddity) }

    mutating func state() -> String {
        var members: [String] = []
        if r.chance(0.8) { members.append(#""customer": "# + string()) }
        if r.chance(0.3) { members.append(#""customer_since": "# + instant()) }
        if r.chance(0.7) { members.append(#""now": "# + instant()) }
        if r.chance(0.2) {
            members.append(#""environment": "# + (odd(0.3) ? #""prod""# : r.pick([#""live""#, #""test""#, "null"])))
        }
        if r.chance(0.1) { members.append(#""$schema": "https://entlc.dev/state.schema.json""#) }
        if r.chance(0.9) {
            let items = (0..<r.int(0...4)).map { _ in purchase() }
            members.append(#""purchases": "# + (r.chance(0.05) ? "null" : array(items)))
        }
        if r.chance(0.8) {
            let items = (0..<r.int(0...4)).map { _ in usage() }
            members.append(#""usage": "# + (r.chance(0.05) ? "null" : array(items)))
        }
        if odd(0.3) { members.append(#""overrides": {"p0": "purchased"}"#) }
        if odd(0.3) { members.append(#""grants": []"#) }
        if odd(0.3) { members.append(#""colour": 1"#) }
        if odd(0.3), let first = members.first { members.append(first) }
        shuffle(&members)
        return space() + object(members) + space()
    }

    mutating func purchase() -> String {
        var members: [String] = []
        if !odd(0.2) { members.append(#""product": "# + name()) }
        if r.chance(0.4) { members.append(#""store": "# + name()) }
        if r.chance(0.8) {
            let statuses = PurchaseStatus.allCases.map { "\"\($0.rawValue)\"" } + ["null"]
            members.append(#""status": "# + (odd() ? #""Active""# : r.pick(statuses)))
        }
        for key in ["purchased_at", "period_start", "expires_at", "grace_until"] where r.chance(0.4) {
            members.append("\"\(key)\": " + instant())
        }
        if r.chance(0.2) { members.append(#""will_renew": "# + (odd() ? "1" : r.pick(["true", "false", "null"]))) }
        if r.chance(0.2) {
            let values = [#""purchased""#, #""family_shared""#, "null"]
            members.append(#""ownership": "# + (odd() ? #""x""# : r.pick(values)))
        }
        if r.chance(0.2) { members.append(#""quantity": "# + integer()) }
        if r.chance(0.1) { members.append(#""environment": "# + r.pick([#""live""#, #""test""#, "null"])) }
        if odd(0.2) { members.append(#""state": "active""#) }
        shuffle(&members)
        return object(members)
    }

    mutating func usage() -> String {
        var members: [String] = []
        let event = r.chance(0.2)
        members.append((event ? #""event": "# : #""feature": "#) + name())
        if odd(0.2) { members.append((event ? #""feature": "# : #""event": "#) + name()) }
        let level = r.chance(0.2)
        if !odd(0.2) { members.append((level ? #""level": "# : #""amount": "#) + integer()) }
        if odd(0.2) { members.append((level ? #""amount": "# : #""level": "#) + integer()) }
        if r.chance(0.7) { members.append(#""at": "# + instant()) }
        if r.chance(0.3) { members.append(#""id": "# + string()) }
        shuffle(&members)
        return object(members)
    }

    /// An object's members in any order, or (half the time) in the order written, as a tracker
    /// writes every object (`KeyOrder` then predicts each key).
    mutating func shuffle(_ members: inout [String]) {
        if r.chance(0.5) { members.shuffle(using: &r) }
    }

    mutating func object(_ members: [String]) -> String {
        var text = "{" + space()
        for (k, m) in members.enumerated() { text += (k == 0 ? "" : "," + space()) + m }
        return text + space() + "}"
    }

    mutating func array(_ items: [String]) -> String {
        var text = "[" + space()
        for (k, m) in items.enumerated() { text += (k == 0 ? "" : "," + space()) + m }
        return text + space() + "]"
    }

    /// Mostly one space, sometimes none or a run of JSON's four space bytes.
    mutating func space() -> String {
        if r.chance(0.6) { return r.chance(0.5) ? " " : "" }
        return String((0..<r.int(1...3)).map { _ in r.pick([" ", "\t", "\n", "\r"]) })
    }

    mutating func name() -> String {
        r.chance(0.7) ? "\"\(r.pick(Self.names))\"" : string()
    }

    mutating func string() -> String {
        let plain = String((0..<r.int(0...20)).map { _ in r.pick(Array("abcp019._-Z")) })
        if r.chance(0.05) { return "null" }
        if !odd(0.2) { return "\"\(plain)\"" }
        return r.pick([#""c\u0030""#, #""é""#, #""a\"b""#, "\"\(plain)\\n\"", "1"])
    }

    mutating func instant() -> String {
        if r.chance(0.05) { return "null" }
        let year = r.int(1969...2100), month = r.int(1...12), day = r.int(1...28)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, r.int(0...23), r.int(0...59),
                          r.int(0...59))
        if !odd(0.2) { return "\"\(text)\"" }
        return r.pick([
            "\"\(text.lowercased())\"", "\"\(text.dropLast()).25Z\"", "\"\(text.dropLast())+00:00\"",
            "\"\(text.replacingOccurrences(of: "T", with: " "))\"", #""2026-02-29T00:00:00Z""#,
            #""2024-02-29T23:59:59Z""#, #""2026-04-31T00:00:00Z""#, #""2026-11-22T24:00:00Z""#, "20",
        ])
    }

    mutating func integer() -> String {
        // Up to 7 digits are read as one word, more a byte at a time: both, and the edges.
        if !odd(0.3) {
            if r.chance(0.1) { return r.pick(["0", "1000000000000000", "9999999", "10000000", "12345678"]) }
            return String(r.chance(0.7) ? r.int64(1...5_000) : r.int64(5_001...999_999_999))
        }
        return r.pick(["1000000000000001", "9999999999999999", "10000000000000000", "-1", "1.0", "1e2", "01", "0.5",
                       "null", "\"5\"", "5E0", "00", "0123456", "1234567.5", "1234567e1", "7E1", "12345678.0"])
    }

    /// The text with a byte replaced, removed or inserted, or a slice repeated or cut.
    mutating func mutate(_ text: String) -> String {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return text }
        let at = r.int(0...(bytes.count - 1))
        let interesting = Array(#""\{}[],: 09e.-nt"#.utf8) + [0x80, 0x01, 0x7F]
        switch r.int(0...4) {
        case 0: bytes[at] = r.pick(interesting)
        case 1: bytes.remove(at: at)
        case 2: bytes.insert(r.pick(interesting), at: at)
        case 3: bytes.insert(contentsOf: Array(bytes[at..<min(bytes.count, at + r.int(1...12))]), at: at)
        default: bytes.removeSubrange(at..<min(bytes.count, at + r.int(1...12)))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
