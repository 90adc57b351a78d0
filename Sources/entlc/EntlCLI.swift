import EntlSupport
import EntlSyntax

/// Exit codes, the same for every subcommand (docs/cli.md).
enum ExitCode: Int32 {
    /// Success: no errors, allowed, formatted, all tests passed.
    case success = 0
    /// The answer is "no": errors found, denied or undetermined, needs formatting, a test failed.
    case no = 1
    /// The job could not be done: bad arguments, unreadable file, invalid state, rules that do
    /// not compile.
    case failure = 2
}

/// One subcommand: its help text, the options it accepts and what it does.
struct CommandSpec: Sendable {
    let name: String
    let summary: String
    /// The full `entlc help NAME` text.
    let help: String
    let options: [OptionSpec]
    let run: @Sendable (ParsedArguments) throws(CLIError) -> ExitCode
    /// A command group's subcommands (`entlc state import`): the first argument names one.
    var subcommands: [CommandSpec] = []

    /// A command group: `entlc NAME SUBCOMMAND …` runs the subcommand; its help lists them.
    static func group(_ name: String, summary: String, _ subcommands: [CommandSpec]) -> CommandSpec {
        var help = "USAGE: entlc \(name) SUBCOMMAND [ARGUMENTS] [OPTIONS]\n\nSUBCOMMANDS:\n"
        for c in subcommands { help += "  " + c.name.padding(10) + c.summary + "\n" }
        help += "\nRun `entlc \(name) SUBCOMMAND --help` for a subcommand's options.\n"
        let names = subcommands.map(\.name).joined(separator: ", ")
        return CommandSpec(name: name, summary: summary, help: help, options: [], run: { _ throws(CLIError) in
            throw CLIError("`entlc \(name)` needs a subcommand: \(names)")
        }, subcommands: subcommands)
    }

    /// The subcommand `arguments` start with, and the arguments after it; this command itself
    /// when it is no group or no subcommand is named.
    func resolve(_ arguments: [String]) throws(CLIError) -> (CommandSpec, [String]) {
        guard !subcommands.isEmpty, let first = arguments.first, !first.hasPrefix("-") else { return (self, arguments) }
        guard let sub = subcommands.first(where: { $0.name == first }) else {
            let hint = Suggestions.closest(to: first, among: subcommands.map(\.name)).map { " (did you mean `\($0)`?)" } ?? ""
            throw CLIError("unknown subcommand `\(name) \(first)`\(hint); run `entlc \(name) --help` for the list")
        }
        return (sub, Array(arguments.dropFirst()))
    }
}

/// Dispatches `entlc COMMAND …` in the style of `git` and `swift`.
enum EntlCLI {
    static let version = "0.1.0"

    static let commands: [CommandSpec] = [
        CheckCommand.spec, EvalCommand.spec, TestCommand.spec, BuildCommand.spec, GenCommand.spec, FmtCommand.spec, GraphCommand.spec, ChangesCommand.spec,
        DiffCommand.spec, ExplainCommand.spec, LspCommand.spec, KeygenCommand.spec, VerifyCommand.spec,
        .group("state", summary: "check states, and turn store and billing data into one (import)",
               [StateCheckCommand.spec, StateImportCommand.spec]),
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
            guard let command = command(named: arguments[1]) else { return fail(unknownCommand(arguments[1])) }
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
        let hint = Suggestions.closest(to: name, among: commands.map(\.name) + ["help"]).map { " (did you mean `\($0)`?)" } ?? ""
        return CLIError("unknown command `\(name)`\(hint); run `entlc --help` for the list")
    }

    static func fail(_ error: CLIError) -> ExitCode {
        Terminal.emitError("entlc: error: \(error.message)\n")
        return .failure
    }
}

extension String {
    /// Pads with spaces to at least `width` characters (at least one space is added).
    func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, width - count))
    }
}
