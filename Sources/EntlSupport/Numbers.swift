extension Int64 {
    /// The number with `separator` between groups of three digits: `10,000` for text, `10_000` for
    /// an `.entl` literal.
    public func grouped(by separator: Character) -> String {
        let digits = String(magnitude)
        var out = self < 0 ? "-" : ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(separator) }
            out.append(c)
        }
        return out
    }
}
