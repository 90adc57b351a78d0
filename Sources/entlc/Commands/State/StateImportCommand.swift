import EntlImport
import EntlRuntime
import EntlSupport

/// `entlc state import --from VENDOR FILE… [--rules RULES] [-o OUT] [--unverified-jws]`: what a
/// store or billing system reports, as a customer state (docs/import.md). The work is
/// `StateImporter` (EntlImport); this wires files, the rules and the output to it.
enum StateImportCommand {
    static let spec = CommandSpec(
        name: "import",
        summary: "turn RevenueCat, App Store, Google Play or Stripe data into a state",
        help: """
        USAGE: entlc state import --from revenuecat|app-store|play|stripe FILE... [OPTIONS]

        Reads what a store or billing system reports about one customer and writes it as a state
        (docs/state.md) that `entlc eval` evaluates. Several FILEs merge into one state; `-` is
        standard input. docs/import.md maps every status and field, and says why.

          revenuecat  RevenueCat REST API v1 `GET /subscribers/{app_user_id}` responses
          app-store   App Store Server API transactions and renewal infos (decoded), or the
                      "Get All Subscription Statuses" response (needs --unverified-jws)
          play        Google Play `SubscriptionPurchaseV2` and `ProductPurchase` resources
          stripe      Stripe Subscriptions and Checkout Sessions (payment mode, line_items expanded)

        OPTIONS:
          --from VENDOR       the format of the FILEs (required)
          --rules RULES       check the product ids and entitlements against these rules: the ones
                              the rules do not know are warnings (repeatable: files, directories)
          -o, --output FILE   write the state there (atomically) instead of standard output
          --unverified-jws    decode App Store JWS strings without verifying Apple's signature
                              (only for payloads verified elsewhere)

        EXIT: 0 imported (warnings on standard error), 2 bad arguments, unreadable files, a payload
              that cannot be imported (nothing is written), or rules that do not compile.

        """,
        options: [
            OptionSpec(name: "--from", takesValue: true),
            OptionSpec(name: "--rules", takesValue: true, repeatable: true),
            OptionSpec(name: "--output", takesValue: true, short: "-o"),
            OptionSpec(name: "--unverified-jws"),
        ],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let vendors = Vendor.allCases.map(\.rawValue)
        guard let name = try args.choice("--from", in: vendors), let vendor = Vendor(rawValue: name) else {
            throw CLIError("give the format with --from \(vendors.joined(separator: "|"))")
        }
        guard !args.positionals.isEmpty else { throw CLIError("give the files to import (or `-` for standard input)") }
        var options = ImportOptions(allowUnverifiedJWS: args.has("--unverified-jws"))
        if args.has("--rules") {
            options.catalog = ProductCatalog(graph: try RuleLoader.compile(args.all("--rules")).graph)
        }
        var documents: [ImportDocument] = []
        for path in args.positionals {
            documents.append(ImportDocument(name: StateFile.name(path), bytes: try FileSystem.contents(ofInput: path)))
        }
        let result: ImportResult
        do throws(ImportIssue) {
            result = try StateImporter.importState(from: vendor, documents: documents, options: options)
        } catch {
            throw CLIError("\(error)")
        }
        for warning in result.warnings { Terminal.emitError("entlc: warning: \("\(warning)".withControlsEscaped)\n") }
        try FileSystem.writeOutput(args.value("--output") ?? "-", result.json)
        return .success
    }
}
