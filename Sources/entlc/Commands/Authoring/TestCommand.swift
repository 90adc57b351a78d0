import EntlCompiler
import EntlRuntime
import EntlSyntax

/// `entlc test RULES [--format text|junit] [--filter TEXT]`
enum TestCommand {
    static let spec = CommandSpec(
        name: "test",
        summary: "run the scenario tests of a rule set",
        help: """
        USAGE: entlc test RULES... [--format text|junit] [--filter TEXT]

        Runs every `test "…" { … }` block: builds the state (a `state "FILE"` next to the rules,
        then `given`, `used`, `level`, `override`), evaluates it at the test's `at`, and checks
        each `expect`. Prints one line per test, the failures with file:line, expected and
        actual, then `N passed, N failed`.

        OPTIONS:
          --format text|junit   text (default) or JUnit XML for CI test reports
          --filter TEXT         run only the tests whose description contains TEXT

        EXIT: 0 all passed, 1 a test failed, 2 bad arguments or rules that do not compile.

        """,
        options: [OptionSpec(name: "--format", takesValue: true), OptionSpec(name: "--filter", takesValue: true)],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["text", "junit"]) ?? "text"
        let (graph, checked) = try RuleLoader.compile(args.positionals)
        // The runner says which state file; the error says why it could not be read.
        let runner = TestRunner(checked: checked, graph: graph) { path in
            do throws(FileSystem.ReadError) {
                return try FileSystem.readFile(path)
            } catch {
                throw StateFileError(message: error.reason)
            }
        }
        var outcomes: [TestRunner.Outcome] = []
        let filter = args.value("--filter")
        let elapsed = ContinuousClock().measure { outcomes = runner.run(filter: filter) }
        Terminal.emit(format == "junit" ? junit(outcomes, elapsed: elapsed) : text(outcomes))
        // Nothing ran: a "pass" would hide a typo in the filter or a rule set without tests.
        if outcomes.isEmpty {
            let total = runner.run(filter: nil).count
            Terminal.emitError("entlc: no tests ran: " + (filter.map { total == 0
                ? "the rule set has no `test` blocks (and no test matches `\($0)`)"
                : "no test description contains `\($0)` (the rule set has \(total.counted("test")))" }
                ?? "the rule set has no `test` blocks") + "\n")
            return .no
        }
        return outcomes.allSatisfy(\.passed) ? .success : .no
    }

    struct StateFileError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func text(_ outcomes: [TestRunner.Outcome]) -> String {
        var out = ""
        for o in outcomes {
            // Each a line of its own: a description (a string of the rules) or a reason holding a
            // line break or an escape sequence had forged a line (`PASS  …`) or moved the cursor.
            out += (o.passed ? "PASS  " : "FAIL  ") + o.name.withControlsEscaped + "\n"
            if let error = o.error {
                out += "      \(o.file.withControlsEscaped):\(o.location): cannot run: \(error.withControlsEscaped)\n"
            }
            for f in o.failures {
                out += "      \(f.file.withControlsEscaped):\(f.location): \(f.expectation.withControlsEscaped)\n"
                out += "        expected: \(f.expected.withControlsEscaped)\n"
                out += "        actual:   \(f.actual.withControlsEscaped)\n"
            }
        }
        let failed = outcomes.filter { !$0.passed }.count
        return out + "\(outcomes.count - failed) passed, \(failed) failed\n"
    }

    /// JUnit XML: one `<testsuite>` per rule file, one `<testcase>` per test.
    static func junit(_ outcomes: [TestRunner.Outcome], elapsed: Duration) -> String {
        let failed = outcomes.filter { !$0.passed }.count
        var files: [String] = []
        for o in outcomes where !files.contains(o.file) { files.append(o.file) }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"entlc\" tests=\"\(outcomes.count)\" failures=\"\(failed)\" errors=\"0\" "
            + "time=\"\(seconds(elapsed))\">\n"
        for file in files {
            let tests = outcomes.filter { $0.file == file }
            let suiteFailed = tests.filter { !$0.passed }.count
            out += "  <testsuite name=\"\(xml(file))\" tests=\"\(tests.count)\" failures=\"\(suiteFailed)\" "
                + "errors=\"0\">\n"
            for t in tests {
                out += "    <testcase name=\"\(xml(t.name))\" classname=\"\(xml(file))\" file=\"\(xml(file))\" "
                    + "line=\"\(t.location.line)\""
                if t.passed {
                    out += "/>\n"
                    continue
                }
                out += ">\n"
                if let error = t.error {
                    out += "      <failure message=\"\(xml("cannot run: " + error))\" type=\"error\">"
                        + xml("\(file):\(t.location): cannot run: \(error)") + "</failure>\n"
                }
                for f in t.failures {
                    let message = xml("expected \(f.expected), got \(f.actual)")
                    let body = xml("\(f.file):\(f.location): \(f.expectation)\n"
                                   + "expected: \(f.expected)\nactual:   \(f.actual)")
                    out += "      <failure message=\"\(message)\" type=\"expectation\">\(body)</failure>\n"
                }
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func seconds(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - String(ms % 1000).count))\(ms % 1000)"
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            default:
                // XML 1.0 has no representation for most control characters, nor for U+FFFE and
                // U+FFFF (its Char production); carriage returns and tabs are kept as references.
                switch scalar.value {
                case 0x0D: out += "&#13;"
                case 0x09: out += "&#9;"
                case ..<0x20, 0xFFFE, 0xFFFF: out += "?"
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
