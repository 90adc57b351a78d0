/// `entlc state SUBCOMMAND`: the commands about customer states, as one group.
enum StateCommand {
    static let spec = CommandSpec.group(
        "state", summary: "check states, and turn store and billing data into one (import)",
        [StateCheckCommand.spec, StateImportCommand.spec])
}
