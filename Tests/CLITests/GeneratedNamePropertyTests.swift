import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// `entlc gen` over random names (seeded): keywords of both targets, the generated types' own
/// members, digits after underscores, case and underscore variants of one another. For every
/// rule set, both generators either write code that compiles (swiftc against EntlRuntime, tsc
/// `--strict`) or refuse the same collisions, each a pair of names of one kind that differ only
/// by `_` or case; and a name's identifier never depends on the order of the declarations.
///
/// `swift test` runs one rule set of 300 names; `Tests/Gen/names.sh` runs hundreds of smaller
/// ones (`ENTLC_GEN_CASES`, `ENTLC_GEN_NAMES`; `ENTLC_GEN_SEED` replays one case).
@Suite struct GeneratedNamePropertyTests {
    static let environment = ProcessInfo.processInfo.environment
    static let cases = Int(environment["ENTLC_GEN_CASES"] ?? "") ?? 1
    static let namesPerCase = Int(environment["ENTLC_GEN_NAMES"] ?? "") ?? 300
    static let seeds: [UInt64] = environment["ENTLC_GEN_SEED"].flatMap(UInt64.init).map { [$0] }
        ?? (0..<UInt64(cases)).map { 0x6E61_6D65 &+ $0 }
    static let tsc = (environment["PATH"] ?? "").split(separator: ":").map { $0 + "/tsc" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func swiftCompilesAndIdentifiersAreStable() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let modules = entlcExecutable.deletingLastPathComponent().appendingPathComponent("Modules").path
        for seed in Self.seeds {
            let generated = try generate(seed)
            try generated.swift.write(toFile: dir + "/Rules.swift", atomically: true, encoding: .utf8)
            try generated.swiftUse.write(toFile: dir + "/Use.swift", atomically: true, encoding: .utf8)
            let result = try run("/usr/bin/env", ["swiftc", "-typecheck", "-I", modules, dir + "/Rules.swift",
                                                  dir + "/Use.swift"])
            #expect(result.status == 0, "seed \(seed) (ENTLC_GEN_SEED=\(seed)): \(result.output)")
        }
    }

    @Test(.enabled(if: tsc != nil, "tsc is not installed (apt-get install node-typescript)"))
    func typeScriptCompilesUnderStrict() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var uses: [String] = []
        for seed in Self.seeds {
            let generated = try generate(seed)
            try FileManager.default.createDirectory(atPath: dir + "/\(seed)", withIntermediateDirectories: true)
            try generated.typeScript.write(toFile: dir + "/\(seed)/rules.ts", atomically: true, encoding: .utf8)
            try generated.typeScriptUse.write(toFile: dir + "/\(seed)/use.ts", atomically: true, encoding: .utf8)
            uses.append(dir + "/\(seed)/use.ts")
        }
        let options = ["--strict", "--noEmit", "--target", "es2019", "--moduleResolution", "node"]
        let result = try run(Self.tsc!, options + uses)
        #expect(result.status == 0, "seeds \(Self.seeds.first!)…: \(result.output)")
    }

    /// The code both targets write for one random rule set, after the properties that need no
    /// compiler are checked (refusals and their fix, stability under reordering).
    private struct Generated {
        var swift: String, swiftUse: String, typeScript: String, typeScriptUse: String
    }

    private func generate(_ seed: UInt64) throws -> Generated {
        var random = SeededRandom(seed: seed)
        var declarations = RandomNames.declarations(Self.namesPerCase, &random)
        let context = "seed \(seed) (ENTLC_GEN_SEED=\(seed))"
        // Refusals: the same pairs in both targets, each a real near-duplicate of one kind; the
        // same names are refused in any order; without the later of each pair, both targets write.
        guard var outcome = Outcome(declarations) else { throw Failure(context) }
        if let refused = outcome.refused {
            guard let shuffled = Outcome(declarations.shuffled(using: &random)) else { throw Failure(context) }
            #expect(Set(shuffled.refused?.flatMap { $0.declarations.map(\.name) } ?? [])
                    == Set(refused.flatMap { $0.declarations.map(\.name) }), "\(context)")
            for c in refused {
                let (a, b) = (c.declarations[0], c.declarations[1])
                #expect(a.noun == b.noun && a.name != b.name && RandomNames.fold(a.name) == RandomNames.fold(b.name),
                        "\(context): \(c.message)")
            }
            // Without the later name of each pair (again, while a third name still collides).
            var pending: [GenerationError.Collision]? = refused
            while let collisions = pending {
                let later = Set(collisions.map { $0.declarations[1].name })
                declarations.removeAll { later.contains($0.name) }
                guard let fixed = Outcome(declarations) else { throw Failure(context) }
                (outcome, pending) = (fixed, fixed.refused)
            }
        }
        let written = try #require(outcome.written, "\(context): \(outcome.refused?.map(\.message) ?? [])")
        // Stable: each name keeps its identifier when the declarations come in another order,
        // and the identifier spells the name.
        guard let reordered = Outcome(declarations.shuffled(using: &random))?.written else { throw Failure(context) }
        #expect(RandomNames.identifiers(swift: reordered.swift) == RandomNames.identifiers(swift: written.swift),
                "\(context)")
        #expect(RandomNames.identifiers(typeScript: reordered.typeScript)
                == RandomNames.identifiers(typeScript: written.typeScript), "\(context)")
        for (key, id) in RandomNames.identifiers(swift: written.swift) {
            #expect(RandomNames.fold(id) == RandomNames.fold(key.name), "\(context): `\(key.name)` became `\(id)`")
        }
        return Generated(swift: written.swift, swiftUse: RandomNames.swiftUse(written.swift),
                         typeScript: written.typeScript, typeScriptUse: RandomNames.typeScriptUse(written.typeScript))
    }

    /// Both generators on one rule set: both wrote, or both refused the same collisions.
    private struct Outcome {
        var written: (swift: String, typeScript: String)?
        var refused: [GenerationError.Collision]?

        /// Nil, with an issue naming the first error, when the rules do not compile.
        init?(_ declarations: [RandomNames.Declaration]) {
            let text = declarations.map(\.text).joined(separator: "\n") + "\n"
            let compilation = Compiler.compile([SourceFile(path: "names.entl", text: text)], lint: false)
            guard let graph = compilation.graph else {
                let first = compilation.checked.sortedDiagnostics.first
                let place = first.map { "\($0.range.start.line): \($0.message)" } ?? ""
                Issue.record("the random rules do not compile: \(place)")
                return nil
            }
            do throws(GenerationError) {
                let swift = try SwiftGenerator.generate(graph, compilation.checked, header: "test")
                written = (swift, try TypeScriptGenerator.generate(graph, compilation.checked, header: "test"))
            } catch {
                refused = error.collisions
                do throws(GenerationError) {
                    _ = try TypeScriptGenerator.generate(graph, compilation.checked, header: "test")
                    Issue.record("Swift refused \(error.collisions.map(\.message)), TypeScript did not")
                } catch let ts {
                    let names = { (c: [GenerationError.Collision]) in c.map { $0.declarations.map(\.name) } }
                    #expect(names(ts.collisions) == names(error.collisions))
                }
            }
        }
    }

    private struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ context: String) { description = context + ": the random rules do not compile" }
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}

/// Random declarations whose names stress identifier generation, and readers of what the
/// generators wrote.
private enum RandomNames {
    struct Declaration {
        var name: String
        var text: String
    }

    /// Words with a meaning in Swift, TypeScript or JavaScript, or in the generated types.
    static let words = [
        "self", "Self", "Type", "Protocol", "Any", "init", "deinit", "subscript", "class", "default", "in", "is", "as",
        "let", "var", "func", "static", "struct", "enum", "protocol", "extension", "precedencegroup", "operator",
        "associatedtype", "typealias", "import", "inout", "internal", "private", "public", "fileprivate", "open",
        "some", "any", "await", "async", "throws", "rethrows", "throw", "try", "catch", "defer", "do", "repeat",
        "return", "super",
        "switch", "case", "where", "while", "for", "if", "else", "guard", "break", "continue", "fallthrough", "nil",
        "true", "false", "get", "set", "willSet", "didSet", "lazy", "weak", "unowned", "mutating", "consume", "copy",
        "delete", "typeof", "instanceof", "new", "this", "void", "with", "yield", "function", "const", "debugger",
        "export", "extends", "finally", "implements", "interface", "package", "protected", "arguments", "eval",
        "constructor", "prototype", "__proto__", "toString", "valueOf", "hasOwnProperty", "undefined", "null", "NaN",
        "Infinity", "name", "kind", "storeIDs", "storeIds", "unit", "unitSingular", "unitPlural", "allCases", "named",
        "description", "hashValue", "hash", "value", "Products", "Features", "EntlFeature", "ProductName",
    ]
    /// Not names in entl, or not usable where these declarations put them.
    static let excluded: Set<String> = [
        "app", "environment", "product", "feature", "credits", "entitlement", "test", "and", "or", "not", "everyone",
    ]
    static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let digits = Array("0123456789")

    /// `count` declarations of random kinds with distinct names, some in the test environment,
    /// with awkward doc comments and display names.
    static func declarations(_ count: Int, _ random: inout SeededRandom) -> [Declaration] {
        var names: [String] = []
        var seen: Set<String> = []
        while names.count < count {
            let name = self.name(names, &random)
            guard valid(name), seen.insert(name).inserted else { continue }
            names.append(name)
        }
        return names.map { name in
            let docs = ["a */ b", "\"quoted\" \\ back", "x\u{2028}y", "tab\there", "ü ✓"]
            let doc = random.chance(0.3) ? "/// " + random.pick(docs) + "\n" : ""
            let display = random.chance(0.3)
                ? " { name " + random.pick(["\"line\\nbreak\"", "\"cr\\u{D}x\"", "\"nul\\u{0}\"", "\"q\\\"b\\\\\"",
                                            "\"\\u{2029}\""]) + " }"
                : ""
            let body: String
            switch random.int(0...3) {
            case 0:
                let store = random.pick(["app_store", "__proto__", "constructor", "default"])
                let stores = random.chance(0.3) ? " { id \(store) \"id.\(name)\" }" : display
                body = "product \(name): non_consumable" + stores
            case 1: body = "feature \(name): boolean"
            case 2: body = "entitlement \(name) = everyone"
            default: body = "credits \(name)"
            }
            let text = doc + body
            return Declaration(name: name, text: random.chance(0.1) ? "environment test { \(text) }" : text)
        }
    }

    /// A keyword-like word, a variant of an earlier name, or random letters, digits and `_`.
    private static func name(_ earlier: [String], _ random: inout SeededRandom) -> String {
        switch random.int(0...9) {
        case 0...2: return variant(random.pick(words), &random)
        case 3...5 where !earlier.isEmpty: return variant(random.pick(earlier), &random)
        default:
            var s = String(random.pick(letters + ["_"]))
            for _ in 0..<random.int(0...8) {
                s.append(random.pick(letters + digits + ["_", "_", "0", "9"]))
            }
            return s
        }
    }

    /// The same word with its case or underscores changed, or a digit after a leading `_`.
    private static func variant(_ word: String, _ random: inout SeededRandom) -> String {
        switch random.int(0...7) {
        case 0: return word.uppercased()
        case 1: return word.prefix(1).uppercased() + word.dropFirst()
        case 2: return "_" + word
        case 3: return word + "_"
        case 4:
            let i = random.int(0...word.count)
            return String(word.prefix(i)) + "_" + word.dropFirst(i)
        case 5: return "_" + String(random.pick(digits)) + word
        default: return word
        }
    }

    static func valid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return !excluded.contains(name)
    }

    /// A name or identifier without `_`, backticks and case: what identifier generation keeps.
    static func fold(_ s: String) -> String {
        s.filter { $0 != "_" && $0 != "`" }.lowercased()
    }

    struct Key: Hashable {
        var type: String, name: String
    }

    /// `public static let ID = EntlX(name: "NAME"…` → (EntlX, NAME) → ID (backticks removed).
    static func identifiers(swift: String) -> [Key: String] {
        var out: [Key: String] = [:]
        for line in swift.split(separator: "\n") {
            guard let rest = line.firstRange(of: "public static let ").map({ line[$0.upperBound...] }),
                  let eq = rest.firstRange(of: " = Entl"), let open = rest.firstRange(of: "(name: \"") else { continue }
            let type = String(rest[rest.index(eq.lowerBound, offsetBy: 3)..<open.lowerBound])
            let name = rest[open.upperBound...].prefix { $0 != "\"" }
            out[Key(type: type, name: String(name))] = rest[..<eq.lowerBound].filter { $0 != "`" }
        }
        return out
    }

    /// `export const Features = {` … `  ID: { name: "NAME", …` → (Features, NAME) → ID.
    static func identifiers(typeScript: String) -> [Key: String] {
        var out: [Key: String] = [:]
        var object = ""
        for line in typeScript.split(separator: "\n") {
            if line.hasPrefix("export const ") { object = String(line.dropFirst(13).prefix { $0 != " " && $0 != ":" }) }
            guard line.hasPrefix("  "), let open = line.firstRange(of: ": { name: \"") else { continue }
            let name = line[open.upperBound...].prefix { $0 != "\"" }
            out[Key(type: object, name: String(name))] = String(line.dropFirst(2)[..<open.lowerBound])
        }
        return out
    }

    /// App code naming every constant, as `EntlFeature.x` and, in a typed array, as `.x`.
    static func swiftUse(_ swift: String) -> String {
        var byType: [String: [String]] = [:]
        for (key, id) in identifiers(swift: swift) { byType[key.type, default: []].append(id) }
        return "import EntlRuntime\n\n" + byType.keys.sorted().map { type in
            let ids = byType[type]!.sorted().map { "`\($0)`" }  // backticks are valid around any identifier
            return "let all\(type): [\(type)] = [" + ids.map { "." + $0 }.joined(separator: ", ") + "]\n"
                + "func names\(type)() -> [String] { ["
                + ids.map { "\(type).\($0).name" }.joined(separator: ", ") + "] }\n"
        }.joined() + "let found = EntlFeature.named(\"x\")\n"
    }

    /// The same in TypeScript: `Features.x.name` as a `FeatureName`.
    static func typeScriptUse(_ typeScript: String) -> String {
        let unions = ["Products": "ProductName", "Entitlements": "EntitlementName", "Features": "FeatureName",
                      "CreditSystems": "CreditSystemName"]
        var byObject: [String: [String]] = [:]
        for (key, id) in identifiers(typeScript: typeScript) { byObject[key.type, default: []].append(id) }
        return "import { Products, Entitlements, Features, CreditSystems, ProductName, EntitlementName, FeatureName, "
            + "CreditSystemName } from \"./rules\";\n\n" + unions.keys.sorted().map { object in
                let ids = (byObject[object] ?? []).sorted()
                return "export const all\(object): \(unions[object]!)[] = ["
                    + ids.map { "\(object).\($0).name" }.joined(separator: ", ") + "];\n"
                    + "export const values\(object): string[] = Object.values(\(object)).map((v) => v.name);\n"
            }.joined()
    }
}
