import EntlSyntax

/// The same feature granted twice in one block (W306).
///
/// Invariant: a block grants each feature once. Two grants of one feature in one block are two
/// separate allowances, consumed one after the other — almost always a copy-paste slip.
enum DuplicateGrantCheck: LintCheck {
    static let code = DiagnosticCode("W306", "feature granted twice in one block")

    static func run(_ context: LintContext) {
        for declaration in context.checkedDeclarations {
            guard let block = grants(of: declaration) else { continue }
            var first: [String: Grant] = [:]
            for g in block.grants {
                if let earlier = first[g.feature.name] {
                    context.report(code, message(g.feature.name, block.owner), file: declaration.site.file,
                                   at: g.feature.range, label: label, help: help,
                                   notes: [DiagnosticNote(message: "first granted here", file: declaration.site.file,
                                                          range: earlier.range)])
                } else {
                    first[g.feature.name] = g
                }
            }
        }
    }
}

extension DuplicateGrantCheck {
    fileprivate static func message(_ feature: String, _ owner: String) -> String {
        "feature `\(feature)` is granted twice in \(owner)"
    }
    fileprivate static let label = "granted again here"
    fileprivate static let help = "merge the two grants into one; separate allowances are consumed one after the other"
}
