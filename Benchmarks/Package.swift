// swift-tools-version:6.0
import PackageDescription

// The benchmarks: a separate package (not part of `swift test`), built in release mode by
// Benchmarks/run.sh. It depends only on the entlc package next to it.
let package = Package(
    name: "entlc-benchmarks",
    dependencies: [.package(name: "entlc", path: "..")],
    targets: [
        .executableTarget(
            name: "entlc-bench",
            dependencies: [
                .product(name: "EntlCompiler", package: "entlc"),
                .product(name: "EntlRuntime", package: "entlc"),
                .product(name: "EntlSyntax", package: "entlc"),
            ]
        )
    ]
)
