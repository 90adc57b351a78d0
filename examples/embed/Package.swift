// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "embed",
    dependencies: [
        // From a Git host: .package(url: "https://github.com/your-org/entlc.git", branch: "main")
        .package(name: "entlc", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "embed", dependencies: [
            .product(name: "EntlRuntime", package: "entlc"),  // the runtime alone: no compiler in the app
        ]),
    ]
)
