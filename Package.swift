// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "cipherctl",
    products: [
        .executable(name: "cipherctl", targets: ["cipherctl"]),
        .library(name: "CipherKit", targets: ["CipherKit"]),
    ],
    targets: [
        // The distribution's SQLCipher (libsqlcipher-dev: <sqlcipher/sqlite3.h>) and OpenSSL, named by
        // the module map. No pkg-config: its -L would put the shared library's folder ahead of
        // the release build's Link folder below.
        .systemLibrary(name: "CSQLCipher"),
        // SQLCipher's page crypto with OpenSSL contexts kept between pages (C, one copy of its state).
        // Optimised in debug builds too: its eight-lane SHA-512 (intrinsics) is slower at -O0 than
        // OpenSSL's one lane, and the tests run the engine in debug builds.
        .target(
            name: "CCipherProvider",
            dependencies: ["CSQLCipher"],
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        // Page-sized reads and writes gathered into large ones, for an in-place rekey's connection (C).
        .target(
            name: "CCoalescingVFS",
            dependencies: ["CSQLCipher"]
        ),
        // Reads that see the last committed state and write nothing: a WAL indexed in memory, a
        // hot journal rolled back in memory (C).
        .target(
            name: "CSnapshotVFS",
            dependencies: ["CSQLCipher", "CCipherProvider"]
        ),
        // A query's rows as csv and json bytes, written straight into the output buffer (C).
        // Optimised in debug builds too, like the provider: the tests compare its output with the
        // shell's over large sweeps.
        .target(
            name: "CRowFormat",
            dependencies: ["CSQLCipher"],
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        .target(
            name: "CipherKit",
            dependencies: ["CSQLCipher", "CCipherProvider", "CCoalescingVFS", "CSnapshotVFS", "CRowFormat"]
        ),
        // Linked by lld with its relative relocations packed (DT_RELR, glibc 2.36 and later):
        // the loader then reads a few kilobytes of them instead of about a megabyte at every
        // start. The release build (what Scripts/install and Scripts/package ship) also links
        // SQLCipher, libstdc++ and libgcc's unwinder in from the distribution's archives, so
        // that only libcrypto, libm and libc are loaded: Link/ holds the linker scripts that
        // turn -lsqlcipher and -lstdc++ into the archives. And it exports no symbols (the Swift
        // runtime's link flags export all), which every lookup in libcrypto looked through
        // first (docs/performance.md, "Start-up").
        .executableTarget(
            name: "cipherctl",
            dependencies: ["CipherKit"],
            exclude: ["Link"],
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux])),
                .unsafeFlags(
                    [
                        "-L", Context.packageDirectory + "/Sources/cipherctl/Link", "-Xclang-linker", "-static-libgcc",
                        "-Xlinker", "--no-export-dynamic",
                    ],
                    .when(platforms: [.linux], configuration: .release)
                ),
            ]
        ),
        // What both test targets use: a seeded generator, so that every sweep replays.
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "CipherKitTests",
            dependencies: ["CipherKit", "CCipherProvider", "CRowFormat", "CSQLCipher", "TestSupport"]
        ),
        .testTarget(
            name: "cipherctlTests",
            dependencies: ["cipherctl", "CipherKit", "TestSupport"],
            // Read by ArchitectureTests from the package's tree, not a resource of the bundle.
            exclude: ["Support/FixedSignatures.txt"]
        ),
    ]
)
