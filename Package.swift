// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "cipherctl",
    products: [
        .executable(name: "cipherctl", targets: ["cipherctl"]),
        .library(name: "CipherKit", targets: ["CipherKit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev", "libssl-dev"])]
        ),
        .target(
            name: "CipherKit",
            dependencies: ["CSQLCipher"]
        ),
        .executableTarget(
            name: "cipherctl",
            dependencies: ["CipherKit"]
        ),
        .testTarget(
            name: "CipherKitTests",
            dependencies: ["CipherKit"]
        ),
        .testTarget(
            name: "cipherctlTests",
            dependencies: ["cipherctl", "CipherKit"]
        ),
    ]
)
