// swift-tools-version:6.0
import PackageDescription

// entlc: no package dependencies, by design. Modules point one way:
// entlc → EntlCompiler → EntlSyntax, and EntlCompiler → EntlRuntime; both of those import only
// EntlSupport (small text utilities). EntlRuntime imports neither EntlSyntax nor EntlCompiler,
// so an app can embed it with a compiled graph alone. EntlImport (store and billing formats →
// state) imports only EntlRuntime: a server links it; an app that embeds the runtime does not.
let package = Package(
    name: "entlc",
    products: [
        .library(name: "EntlSyntax", targets: ["EntlSyntax"]),
        .library(name: "EntlCompiler", targets: ["EntlCompiler"]),
        .library(name: "EntlRuntime", targets: ["EntlRuntime"]),
        .library(name: "EntlImport", targets: ["EntlImport"]),
        .executable(name: "entlc", targets: ["entlc"]),
    ],
    targets: [
        .target(name: "EntlSupport"),
        .target(name: "EntlSyntax", dependencies: ["EntlSupport"]),
        .target(name: "EntlRuntime", dependencies: ["EntlSupport"]),
        .target(name: "EntlImport", dependencies: ["EntlRuntime"]),
        .target(name: "EntlCompiler", dependencies: ["EntlSupport", "EntlSyntax", "EntlRuntime"]),
        .target(name: "EntlLanguageServer", dependencies: ["EntlSupport", "EntlSyntax", "EntlCompiler", "EntlRuntime"]),
        .executableTarget(name: "entlc", dependencies: ["EntlSupport", "EntlSyntax", "EntlCompiler", "EntlRuntime",
                                                        "EntlLanguageServer", "EntlImport"]),
        .target(
            name: "EntlTestSupport",
            dependencies: ["EntlSyntax", "EntlCompiler", "EntlRuntime", "EntlImport"],
            path: "Tests/EntlTestSupport"
        ),
        .testTarget(name: "EntlSyntaxTests", dependencies: ["EntlSyntax", "EntlTestSupport"]),
        .testTarget(name: "EntlCompilerTests", dependencies: ["EntlCompiler", "EntlTestSupport"]),
        .testTarget(name: "EntlRuntimeTests", dependencies: ["EntlRuntime", "EntlCompiler", "EntlTestSupport"]),
        .testTarget(name: "EntlLanguageServerTests", dependencies: ["EntlLanguageServer", "EntlTestSupport"]),
        .testTarget(name: "EntlImportTests", dependencies: ["EntlImport", "EntlTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["entlc", "EntlTestSupport"]),
    ]
)
