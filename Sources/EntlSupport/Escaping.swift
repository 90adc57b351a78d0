extension String {
    /// The string with each control character (C0 and DEL: escape sequences, `\r`, `\n`) written
    /// `\u{1B}`: text from an input made safe for a one-line message on a terminal — no escape
    /// sequence reaches it, no newline forges a line of its own. Itself when it has none.
    public var withControlsEscaped: String {
        // C1 (U+0080…U+009F: NEL, CSI) and U+2028/U+2029 too: a terminal or a viewer may take them
        // for a line end or the start of an escape sequence.
        guard unicodeScalars.contains(where: String.breaksALine) else { return self }
        return replacingScalars { c in
            String.breaksALine(c) ? "\\u{\(String(c.value, radix: 16, uppercase: true))}" : nil
        }
    }

    /// Whether a scalar breaks a line or is a control character: C0, DEL, C1 (NEL among them) and
    /// U+2028/U+2029 (which end a line in JavaScript). What a one-line comment or label of
    /// generated code must not hold as it is.
    public static func breaksALine(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || (0x7F...0x9F).contains(c.value) || c.value == 0x2028 || c.value == 0x2029
    }

    /// `\u{HEX}` for a control character (C0 or DEL), nil for any other scalar.
    static func controlEscape(_ scalar: Unicode.Scalar, uppercaseHex: Bool) -> String? {
        guard scalar.value < 0x20 || scalar.value == 0x7F else { return nil }
        return "\\u{\(String(scalar.value, radix: 16, uppercase: uppercaseHex))}"
    }

    /// The string with every scalar `replacement` gives text for replaced by that text: the one
    /// loop behind each escaper (a string literal of Swift or of entl, XML text).
    public func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        for scalar in unicodeScalars {
            if let text = replacement(scalar) { out += text } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// The string as a double-quoted literal in the style of Swift and entl: `escapes` for the
    /// scalars that have one (`"` and `\` must), `\u{HEX}` for the other control characters
    /// (C0 and DEL).
    public func quotedLiteral(escapes: [Unicode.Scalar: String], uppercaseHex: Bool) -> String {
        "\"" + replacingScalars { scalar in
            escapes[scalar] ?? String.controlEscape(scalar, uppercaseHex: uppercaseHex)
        } + "\""
    }
}

extension String {
    /// The noun with `a` or `an` before it, for messages: "an entitlement", "a product".
    public var withIndefiniteArticle: String {
        (first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + self
    }
}
