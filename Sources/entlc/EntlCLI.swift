import EntlSupport

/// Dispatches `entlc COMMAND …` in the style of `git` and `swift`.
enum EntlCLI {
    static let version = "0.1.0"

    /// Every command, in the order `entlc --help` lists them.
    static let commands: [CommandSpec] = [
        CheckCommand.spec, EvalCommand.spec, TestCommand.spec, BuildCommand.spec, GenCommand.spec, FmtCommand.spec,
        GraphCommand.spec, ChangesCommand.spec, DiffCommand.spec, ExplainCommand.spec, LspCommand.spec,
        KeygenCommand.spec, VerifyCommand.spec, StateCommand.spec,
    ]

    static var generalHelp: String {
        var text = """
        entlc \(version): the entl rules compiler and entitlement evaluator

        USAGE: entlc COMMAND [ARGUMENTS] [OPTIONS]

        COMMANDS:

        """
        for c in commands {
            text += "  " + c.name.padding(10) + c.summary + "\n"
        }
        text += """

        RULES is one or more `.entl` files or directories (every `*.entl` below, in sorted path
        order), or `-` for standard input.

        Run `entlc help COMMAND` (or `entlc COMMAND --help`) for a command's options.
        Exit codes: 0 success, 1 the answer is "no", 2 the job could not be done.

        """
        return text
    }

    static func main(_ arguments: [String]) -> ExitCode {
        guard let first = arguments.first else {
            Terminal.emitError(generalHelp)
            return .failure
        }
        switch first {
        case "--help", "-h":
            Terminal.emit(generalHelp)
            return .success
        case "--version", "-V", "version":
            Terminal.emit("entlc \(version)\n")
            return .success
        case "help":
            guard arguments.count > 1 else {
                Terminal.emit(generalHelp)
                return .success
            }
            if arguments[1] == "help" {
                Terminal.emit(helpHelp)
                return .success
            }
            guard let command = command(named: arguments[1]) else {
                return fail(unknownCommand(arguments[1]))
            }
            do throws(CLIError) {
                Terminal.emit(try command.resolve(Array(arguments.dropFirst(2))).0.help)
            } catch {
                return fail(error)
            }
            return .success
        default:
            guard let group = command(named: first) else { return fail(unknownCommand(first)) }
            let command: CommandSpec, rest: [String]
            do throws(CLIError) {
                (command, rest) = try group.resolve(Array(arguments.dropFirst()))
            } catch {
                return fail(error)
            }
            let beforeDashes = rest.prefix { $0 != "--" }
            if beforeDashes.contains("--help") || beforeDashes.contains("-h") {
                Terminal.emit(command.help)
                return .success
            }
            do throws(CLIError) {
                let parsed = try ParsedArguments(rest, options: command.options)
                return try command.run(parsed)
            } catch {
                return fail(error)
            }
        }
    }

    static let helpHelp = """
        USAGE: entlc help [COMMAND]

        Prints the list of commands, or the usage and options of one command (the same text as
        `entlc COMMAND --help`).

        EXIT: 0, or 2 for an unknown command.

        """

    static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }

    private static func unknownCommand(_ name: String) -> CLIError {
        let hint = Suggestions.didYouMean(name, among: commands.map(\.name) + ["help"])
        return CLIError("unknown command `\(name)`\(hint); run `entlc --help` for the list")
    }

    /// The command line as the system passed it, a byte string per argument: each must be UTF-8
    /// (a path, an id, a name), and one that is not is refused rather than repaired — `req-\xFF` and
    /// `req-\xFE` would both become `req-\u{FFFD}`, two idempotency keys one.
    static func main(rawArguments: [[UInt8]]) -> ExitCode {
        for (i, bytes) in rawArguments.enumerated() {
            if let offset = UTF8Validation.firstInvalidOffset(bytes) {
                return fail(CLIError("argument \(i + 1) is not UTF-8 (byte \(offset + 1) of it): entlc reads its "
                                     + "arguments as UTF-8"))
            }
        }
        return main(rawArguments.map { String(decoding: $0, as: UTF8.self) })
    }

    static func fail(_ error: CLIError) -> ExitCode {
        Terminal.emitError("entlc: error: \(error.message)\n")
        return .failure
    }
}
