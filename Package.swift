// swift-tools-version:6.0
import PackageDescription

// entlc: no package dependencies, by design. Modules point one way:
// entlc → EntlCompiler → EntlSyntax, and EntlCompiler → EntlRuntime; both of those import only
// EntlSupport (small text utilities). EntlRuntime imports neither EntlSyntax nor EntlCompiler,
// so an app can embed it with a compiled graph alone.
let package = Package(
    name: "entlc",
    products: [
        .library(name: "EntlSyntax", targets: ["EntlSyntax"]),
        .library(name: "EntlCompiler", targets: ["EntlCompiler"]),
        .library(name: "EntlRuntime", targets: ["EntlRuntime"]),
        .executable(name: "entlc", targets: ["entlc"]),
    ],
    targets: [
        .target(name: "EntlSupport"),
        .target(name: "EntlSyntax", dependencies: ["EntlSupport"]),
        .target(name: "EntlRuntime", dependencies: ["EntlSupport"]),
        .target(name: "EntlCompiler", dependencies: ["EntlSupport", "EntlSyntax", "EntlRuntime"]),
        .target(name: "EntlLanguageServer", dependencies: ["EntlSupport", "EntlSyntax", "EntlCompiler", "EntlRuntime"]),
        .executableTarget(name: "entlc", dependencies: ["EntlSupport", "EntlSyntax", "EntlCompiler", "EntlRuntime",
                                                        "EntlLanguageServer"]),
        .target(
            name: "EntlTestSupport",
            dependencies: ["EntlSyntax", "EntlCompiler", "EntlRuntime"],
            path: "Tests/EntlTestSupport"
        ),
        .testTarget(name: "EntlSyntaxTests", dependencies: ["EntlSyntax", "EntlTestSupport"]),
        .testTarget(name: "EntlCompilerTests", dependencies: ["EntlCompiler", "EntlTestSupport"]),
        .testTarget(name: "EntlRuntimeTests", dependencies: ["EntlRuntime", "EntlCompiler", "EntlTestSupport"]),
        .testTarget(name: "EntlLanguageServerTests", dependencies: ["EntlLanguageServer", "EntlTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["entlc", "EntlTestSupport"]),
    ]
)
