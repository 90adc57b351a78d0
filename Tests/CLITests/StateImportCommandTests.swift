import EntlTestSupport
import Foundation
import Testing

/// `entlc state import --from VENDOR FILE… [--rules RULES] [-o OUT] [--unverified-jws]`.
@Suite struct StateImportCommandTests {
    static let fixtures = "Tests/Fixtures/import/"

    @Test func importWritesTheStateToStandardOutput() throws {
        let r = try runEntlc(["state", "import", "--from", "stripe", Self.fixtures + "stripe/subscription-active.json"])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == (try readRepoFile(Self.fixtures + "expected/stripe/subscription-active.state.json")))
    }

    @Test func theImportedStateEvaluatesStrictly() throws {
        let dir = try makeTemporaryDirectory()
        let out = dir + "/customer.state.json"
        let r = try runEntlc(["state", "import", "--from", "app-store",
                              Self.fixtures + "app-store/split-transactions.json",
                              Self.fixtures + "app-store/split-renewal-infos.json", "-o", out])
        #expect(r.status == 0)
        #expect(r.stdout == "")
        let eval = try runEntlc(["eval", Self.fixtures + "rules.entl", "--state", out, "--strict",
                                 "--entitlement", "premium", "--at", "2023-12-01T00:00:00Z"])
        #expect(eval.status == 0)
        #expect(eval.stdout.hasPrefix("premium: allowed — active through `apple_monthly` until 2023-12-10T12:01:40Z\n"))
    }

    @Test func productIDsTheRulesDoNotMapAreWarningsNamingIDAndStore() throws {
        let path = Self.fixtures + "stripe/subscription-items.json"
        let r = try runEntlc(["state", "import", "--from", "stripe", path, "--rules", "examples/photos.entl"])
        #expect(r.status == 0)
        // Five seats: kept, but a subscription's grants count once (a review: unsaid, one seat's).
        let seats = "entlc: warning: \(path): items.data[1]: quantity 5: a subscription's grants count once, "
            + "whatever its quantity (seats): a per-seat allowance is not multiplied\n"
        #expect(r.stderr == seats + """
            entlc: warning: \(path): items.data[0]: no product of the rules has id stripe \
            "price_1MowQULkdIwHu7ixraBm864M": the purchase is ignored
            entlc: warning: \(path): items.data[1]: no product of the rules has id stripe \
            "price_1MowSeatsLkdIwHu7ix0001": the purchase is ignored

            """)
        let mapped = try runEntlc(["state", "import", "--from", "stripe", path,
                                   "--rules", Self.fixtures + "rules.entl"])
        #expect(mapped.stderr == seats)
        let broken = try runEntlc(["state", "import", "--from", "stripe", path,
                                   "--rules", Self.fixtures + "README.md"])
        #expect(broken.status == 2)
    }

    @Test(arguments: [
        ("revenuecat", "bad/invalid-json.json", "1:35: invalid JSON: unexpected `,`, expected a string key"),
        ("revenuecat", "bad/bad-date.json",
         "subscriber.subscriptions.annual.expires_date: \"2026-13-01\" is not an RFC 3339 instant"),
        ("app-store", "bad/timestamp-out-of-range.json",
         "expiresDate: 253402300800000 is out of range (milliseconds since 1970, up to the year 9999)"),
        ("stripe", "revenuecat/active.json", "expected a Stripe Subscription, Checkout Session or list of them; "
            + "this looks like a RevenueCat subscriber response: import it as `revenuecat`"),
        ("app-store", "app-store/jws-token.jws", "a signed JWS, which entlc does not verify: import the payload you "
            + "verified and decoded, or allow unverified JWS (`--unverified-jws`) if it was verified elsewhere"),
    ])
    func badInputIsALocatedErrorAndNothingIsWritten(_ vendor: String, _ file: String, _ error: String) throws {
        let dir = try makeTemporaryDirectory()
        let out = dir + "/out.json"
        try "earlier\n".write(toFile: out, atomically: true, encoding: .utf8)
        let path = Self.fixtures + file
        // A good file first: one bad file fails the whole import.
        let good = ["revenuecat": "revenuecat/active.json", "app-store": "app-store/active.json",
                    "stripe": "stripe/subscription-active.json"][vendor]!
        let r = try runEntlc(["state", "import", "--from", vendor, Self.fixtures + good, path, "-o", out])
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: \(path): \(error)\n")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "earlier\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.json"])
    }

    @Test func signedPayloadsImportWithTheCallersWord() throws {
        let r = try runEntlc(["state", "import", "--from", "app-store", "--unverified-jws",
                              Self.fixtures + "app-store/subscription-statuses.json"])
        #expect(r.status == 0)
        #expect(r.stdout == (try readRepoFile(Self.fixtures + "expected/app-store/subscription-statuses.state.json")))
    }

    @Test func standardInputIsAFile() throws {
        let payload = try readRepoFile(Self.fixtures + "play/product-purchased.json")
        let r = try runEntlc(["state", "import", "--from", "play", "-"], stdin: payload)
        #expect(r.status == 0)
        #expect(r.stdout == (try readRepoFile(Self.fixtures + "expected/play/product-purchased.state.json")))
        let bad = try runEntlc(["state", "import", "--from", "play", "-"], stdin: "{")
        #expect(bad.stderr
            == "entlc: error: <stdin>: 1:2: invalid JSON: unexpected end of input, expected a string key\n")
    }

    @Test func argumentsAreChecked() throws {
        let file = Self.fixtures + "play/product-purchased.json"
        #expect(try runEntlc(["state", "import", file]).stderr
            == "entlc: error: give the format with --from revenuecat|app-store|play|stripe\n")
        #expect(try runEntlc(["state", "import", "--from", "revnuecat", file]).stderr
            == "entlc: error: invalid value `revnuecat` for --from (did you mean `revenuecat`?); expected one of: "
            + "revenuecat, app-store, play, stripe\n")
        #expect(try runEntlc(["state", "import", "--from", "play"]).stderr
            == "entlc: error: give the files to import (or `-` for standard input)\n")
        #expect(try runEntlc(["state", "import", "--from", "play", "missing.json"]).stderr
            == "entlc: error: cannot read `missing.json`: no such file or directory\n")
        #expect(try runEntlc(["state", "import", "--from", "play", "missing.json"]).status == 2)
    }

    @Test func stateIsACommandGroup() throws {
        let bare = try runEntlc(["state"])
        #expect(bare.status == 2)
        #expect(bare.stderr == "entlc: error: `entlc state` needs a subcommand: check, import, compact\n")
        let typo = try runEntlc(["state", "imprt"])
        #expect(typo.stderr == "entlc: error: unknown subcommand `state imprt` (did you mean `import`?); "
            + "run `entlc state --help` for the list\n")
        let help = try runEntlc(["state", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains(
            "  import    turn RevenueCat, App Store, Google Play or Stripe data into a state\n"))
        #expect(help.stdout.contains(
            "  compact   fold the usage records before an instant into the state's ledger\n"))
        let importHelp = try runEntlc(["help", "state", "import"])
        #expect(importHelp.stdout.hasPrefix(
            "USAGE: entlc state import --from revenuecat|app-store|play|stripe FILE..."))
        #expect(try runEntlc(["state", "import", "--help"]).stdout == importHelp.stdout)
        #expect(try runEntlc(["--help"]).stdout.contains(
            "  state     check states, turn store and billing data into one (import), fold old usage (compact)\n"))
    }
}

/// docs/import.md's walkthrough is what the commands do: its rules, the RevenueCat response, the
/// imported state and both `entlc eval` answers.
@Suite struct ImportWalkthroughTests {
    @Test func theWalkthroughIsTrue() throws {
        let doc = try readRepoFile("docs/import.md")
        let walkthrough = try #require(doc.components(separatedBy: "## Walkthrough").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        func blocks(_ info: String) -> [String] {
            walkthrough.components(separatedBy: "```" + info + "\n").dropFirst()
                .compactMap { $0.components(separatedBy: "\n```").first.map { $0 + "\n" } }
        }
        let (rules, payload) = (blocks("entl"), blocks("json vendor"))
        let (state, answers) = (blocks("json state"), blocks("text eval"))
        try #require(rules.count == 1 && payload.count == 1 && state.count == 1 && answers.count == 2)
        let dir = try makeTemporaryDirectory()
        try rules[0].write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try payload[0].write(toFile: dir + "/customer.json", atomically: true, encoding: .utf8)
        let command = "entlc state import --from revenuecat customer.json --rules rules.entl -o customer.state.json"
        #expect(walkthrough.contains(command))
        let imported = try runEntlc(Array(command.split(separator: " ").dropFirst().map(String.init)), directory: dir)
        #expect(imported.status == 0)
        #expect(imported.stderr == "")
        #expect(try String(contentsOfFile: dir + "/customer.state.json", encoding: .utf8) == state[0])
        for (at, answer) in zip(["2019-08-20T09:00:00Z", "2019-09-01T00:00:00Z"], answers) {
            #expect(walkthrough.contains("--at \(at)"))
            let eval = try runEntlc(["eval", "rules.entl", "--state", "customer.state.json", "--entitlement", "pro_cat",
                                     "--at", at], directory: dir)
            #expect(eval.stdout == answer)
        }
    }
}
