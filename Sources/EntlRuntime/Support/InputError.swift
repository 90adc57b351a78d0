import EntlSupport

/// An input the runtime refuses, and where: a path into it (`purchases[3].expires_at`,
/// `live.entitlements[2].constraint[4]`), a `line:column` for JSON syntax, or nothing; and what,
/// in one line with no final period.
///
/// One type for every input. `Input` is the type being read (a state, an artifact, a key, an
/// evaluation's query) and only keeps the errors of different inputs apart, so a typed `throws`
/// still says which input failed: `StateError`, `RuleGraphArtifactError`, `KeyFormatError` and
/// `EvaluationError` are this type for theirs.
public struct InputError<Input>: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the input, or empty.
    public var path: String
    public var message: String

    /// Control characters in either (a key or a name read from the input) are escaped
    /// (`withControlsEscaped`): the message stays one line and prints as it reads.
    public init(path: String, message: String) {
        self.path = path.withControlsEscaped
        self.message = message.withControlsEscaped
    }

    /// An error with no place.
    public init(_ message: String) {
        self.init(path: "", message: message)
    }

    /// `path: message`, or the message alone when there is no place.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
