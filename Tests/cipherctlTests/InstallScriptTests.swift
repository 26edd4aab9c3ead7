import Foundation
import XCTest

/// Scripts/install puts the binary, the man page and the completions under a prefix, and
/// Scripts/uninstall takes exactly those away.
final class InstallScriptTests: CLITestCase {
    private let installed = [
        "bin/cipherctl", "share/man/man1/cipherctl.1", "share/bash-completion/completions/cipherctl",
        "share/zsh/site-functions/_cipherctl", "share/fish/vendor_completions.d/cipherctl.fish",
    ]

    func testInstallThenUninstallLeavesThePrefixAsItWas() throws {
        let prefix = path("prefix")
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        _ = try writeFile("prefix/bin/other-tool", "#!/bin/sh\n", mode: 0o755)
        let scripts = Self.packageRoot.appendingPathComponent("Scripts").path
        let install = try run("/bin/bash", [scripts + "/install", prefix], stdin: nil, environment: ["CIPHERCTL_BINARY": Self.binary])
        XCTAssertEqual(install.code, 0, install.stderr)
        for file in installed {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/" + file), file)
        }
        let version = try run(prefix + "/bin/cipherctl", ["--version"], stdin: nil, environment: [:])
        XCTAssertTrue(version.stdout.hasPrefix("cipherctl "), version.stdout)
        let completion = try String(contentsOfFile: prefix + "/share/bash-completion/completions/cipherctl", encoding: .utf8)
        XCTAssertEqual(completion, try cipherctl(["completion", "bash"]).stdout)
        let mode = try FileManager.default.attributesOfItem(atPath: prefix + "/bin/cipherctl")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o755)

        let uninstall = try run("/bin/bash", [scripts + "/uninstall", prefix], stdin: nil, environment: [:])
        XCTAssertEqual(uninstall.code, 0, uninstall.stderr)
        XCTAssertTrue(uninstall.stderr.contains("removed 5 file(s)"), uninstall.stderr)
        for file in installed {
            XCTAssertFalse(FileManager.default.fileExists(atPath: prefix + "/" + file), file)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/bin/other-tool"), "uninstall must remove only its own files")
    }
}
