/// The syntax diagnostics (`E1xx`): everything the lexer and parser can report.
extension DiagnosticCode {
    public static let unexpectedCharacter = DiagnosticCode("E100", "unexpected character")
    public static let invalidUTF8 = DiagnosticCode("E101", "invalid UTF-8")
    public static let unterminatedComment = DiagnosticCode("E102", "unterminated block comment")
    public static let unterminatedString = DiagnosticCode("E103", "unterminated string")
    public static let invalidEscape = DiagnosticCode("E104", "invalid escape sequence")
    public static let integerTooLarge = DiagnosticCode("E105", "integer out of range")
    public static let malformedInteger = DiagnosticCode("E106", "malformed integer")
    public static let expectedToken = DiagnosticCode("E110", "unexpected token")
    public static let reservedWord = DiagnosticCode("E111", "reserved word used as a name")
    public static let unknownKind = DiagnosticCode("E112", "unknown kind")
    public static let unknownKeyword = DiagnosticCode("E113", "unknown value word")
    public static let nestingTooDeep = DiagnosticCode("E114", "nesting too deep")
    public static let unknownItem = DiagnosticCode("E115", "unknown item")
    public static let unknownEnvironment = DiagnosticCode("E116", "unknown environment")
    public static let misplacedDeclaration = DiagnosticCode("E117", "declaration not allowed here")
    public static let duplicateClause = DiagnosticCode("E118", "clause given twice")
    public static let fileTooLarge = DiagnosticCode("E119", "file too large")
    public static let notARuleFile = DiagnosticCode("E120", "not a rule file")
    public static let ambiguousTestInstant = DiagnosticCode("E121", "`at` after `used` or `level`")
    public static let dateOnQuantity = DiagnosticCode("E122", "purchase date on a quantity")

    /// Every syntax code, in code order.
    public static let syntaxCodes: [DiagnosticCode] = [
        .unexpectedCharacter, .invalidUTF8, .unterminatedComment, .unterminatedString, .invalidEscape,
        .integerTooLarge, .malformedInteger, .expectedToken, .reservedWord, .unknownKind,
        .unknownKeyword, .nestingTooDeep, .unknownItem, .unknownEnvironment, .misplacedDeclaration,
        .duplicateClause, .fileTooLarge, .notARuleFile, .ambiguousTestInstant, .dateOnQuantity,
    ]
}
