/// `entlc state SUBCOMMAND`: the commands about customer states, as one group.
enum StateCommand {
    static let spec = CommandSpec.group(
        "state", summary: "check states, turn store and billing data into one (import), fold old usage (compact)",
        [StateCheckCommand.spec, StateImportCommand.spec, StateCompactCommand.spec])
}
