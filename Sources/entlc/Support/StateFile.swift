import EntlRuntime
import EntlSupport

/// Reading customer state files for the commands that evaluate them.
enum StateFile {
    /// How messages name a state file (its control characters escaped, as in every message).
    static func name(_ path: String) -> String { path == "-" ? "<stdin>" : path.withControlsEscaped }

    /// Decodes a state; a decoding error names the file (exit 2). The warnings (unknown keys) go
    /// to standard error, one line each, unless the output carries them (`reportWarnings: false`:
    /// JSON results hold them in `warnings`).
    static func decode(_ bytes: [UInt8], path: String, _ options: StateDecodingOptions, reportWarnings: Bool = true)
        throws(CLIError) -> PurchaseState
    {
        let state: PurchaseState
        do {
            state = try PurchaseState(json: bytes, options: options)
        } catch {
            throw CLIError("\(name(path)): \(error)")
        }
        if reportWarnings {
            for w in state.warnings { Terminal.emitError("entlc: warning: \(name(path)): \(w)\n") }
        }
        return state
    }
}
