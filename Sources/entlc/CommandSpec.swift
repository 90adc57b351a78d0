import EntlSupport

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
        let run: @Sendable (ParsedArguments) throws(CLIError) -> ExitCode = { _ throws(CLIError) in
            throw CLIError("`entlc \(name)` needs a subcommand: \(names)")
        }
        return CommandSpec(name: name, summary: summary, help: help, options: [], run: run, subcommands: subcommands)
    }

    /// The subcommand `arguments` start with, and the arguments after it; this command itself
    /// when it is no group or no subcommand is named.
    func resolve(_ arguments: [String]) throws(CLIError) -> (CommandSpec, [String]) {
        guard !subcommands.isEmpty, let first = arguments.first, !first.hasPrefix("-") else {
            return (self, arguments)
        }
        guard let sub = subcommands.first(where: { $0.name == first }) else {
            let hint = Suggestions.didYouMean(first, among: subcommands.map(\.name))
            throw CLIError("unknown subcommand `\(name) \(first)`\(hint); run `entlc \(name) --help` for the list")
        }
        return (sub, Array(arguments.dropFirst()))
    }
}
