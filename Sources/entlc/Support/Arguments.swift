import EntlRuntime
import EntlSupport
import EntlSyntax

/// The job could not be done (bad arguments, unreadable file, …): printed as
/// `entlc: error: …` with exit code 2.
struct CLIError: Error {
    var message: String
    /// One line, its control characters escaped (an argument or a file's text may hold them).
    init(_ message: String) { self.message = message.withControlsEscaped }
}

/// One `--option` a command accepts.
struct OptionSpec: Sendable {
    var name: String
    /// Takes a value (`--format json` or `--format=json`); otherwise a flag.
    var takesValue: Bool = false
    var repeatable: Bool = false
    /// A one-letter spelling (`-o` for `--output`), stored under `name`.
    var short: String? = nil
}

/// Options and positional arguments of one command line.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    /// The value of an option restricted to a closed set of words.
    func choice(_ name: String, in allowed: [String]) throws(CLIError) -> String? {
        guard let v = value(name) else { return nil }
        guard allowed.contains(v) else {
            throw CLIError("invalid value `\(v)` for \(name)\(Suggestions.didYouMean(v, among: allowed)); "
                           + "expected one of: \(allowed.joined(separator: ", "))")
        }
        return v
    }

    /// `--env live|test`: the environment to evaluate in, nil when not given.
    func environment() throws(CLIError) -> Environment? {
        try choice("--env", in: Environment.allCases.map(\.rawValue)).flatMap(Environment.init(rawValue:))
    }

    /// `--env live|test`: the environments of a rule set to check or compare, both when not given.
    func environmentNames() throws(CLIError) -> [EnvironmentName] {
        try choice("--env", in: EnvironmentName.allCases.map(\.rawValue)).map { [EnvironmentName(rawValue: $0)!] }
            ?? EnvironmentName.allCases
    }

    /// The instant an option gives (RFC 3339), nil when it is not given.
    func instant(_ name: String) throws(CLIError) -> Instant? {
        try value(name).map { text throws(CLIError) in try ParsedArguments.instant(text, option: name) }
    }

    /// An option's text as an instant (RFC 3339), or an error naming the option.
    static func instant(_ text: String, option: String) throws(CLIError) -> Instant {
        guard let instant = Instant(rfc3339: text) else {
            throw CLIError("\(option): \"\(text)\" \(Instant.rejection(of: text))")
        }
        return instant
    }

    /// Parses `args` against `options`. `-` and anything not starting with `--` is positional;
    /// after `--` everything is.
    init(_ args: [String], options: [OptionSpec]) throws(CLIError) {
        var byName: [String: OptionSpec] = [:]
        for o in options {
            byName[o.name] = o
            if let short = o.short { byName[short] = o }
        }
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = byName[name] else {
                throw CLIError("unknown option `\(name)`\(Suggestions.didYouMean(name, among: options.map(\.name)))")
            }
            name = spec.name
            if spec.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count else { throw CLIError("option `\(name)` needs a value") }
                    value = args[i]
                    i += 1
                }
                if values[name] != nil, !spec.repeatable { throw CLIError("option `\(name)` is given more than once") }
                values[name, default: []].append(value)
            } else {
                if inline != nil { throw CLIError("option `\(name)` takes no value") }
                flags.insert(name)
            }
        }
        // Standard input is read once: named for two inputs, the first would get all of it and the
        // second nothing.
        let dashes = positionals.filter { $0 == "-" }.count
        let options = Self.inputOptions.flatMap { option in
            (values[option] ?? []).filter { $0 == "-" }.map { _ in option }
        }
        if dashes + options.count > 1 {
            let arguments = dashes == 0 ? [] : [dashes == 1 ? "an argument" : "\(dashes) arguments"]
            throw CLIError("standard input (`-`) can be read only once; it is given for "
                           + (arguments + options).joined(separator: " and "))
        }
    }

    /// The options that name an input file (`-`: standard input).
    static let inputOptions = ["--state", "--states", "--graph", "--signature", "--trusted-key", "--rules", "--sign"]
}
