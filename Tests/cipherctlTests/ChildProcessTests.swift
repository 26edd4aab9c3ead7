@testable import cipherctl
import Foundation
import XCTest

final class ChildProcessTests: XCTestCase {
    private func output(of launch: ChildLaunch) throws -> (text: String, ending: ChildProcess.Ending?) {
        let process = try ChildProcess(launch)
        let bytes = try process.collect(deadline: Date().addingTimeInterval(10), limit: 1 << 20)
        return (String(decoding: bytes, as: UTF8.self), process.wait(deadline: Date().addingTimeInterval(10)))
    }

    func testArgumentsReachTheProgramAsTheyAreWithNoShellParsingThem() throws {
        let result = try output(of: ChildLaunch(executable: "/usr/bin/printf", arguments: ["printf", "%s|", "a b", "$HOME", "'; echo x"]))
        XCTAssertEqual(result.text, "a b|$HOME|'; echo x|")
        XCTAssertEqual(result.ending?.code, 0)
    }

    func testTheChildHoldsOnlyItsThreeStandardDescriptorsAndReadsNothingFromOurInput() throws {
        // One of ours that is not close-on-exec, as a library or our parent might leave.
        let ours = open("/etc/hostname", O_RDONLY)
        defer { close(ours) }
        let result = try output(of: .shell("ls /proc/self/fd; cat; echo end"))
        // ls holds one more for the folder it lists.
        XCTAssertEqual(result.text.split(separator: "\n").count, 5, result.text)
        XCTAssertTrue(result.text.hasSuffix("end\n"))
    }

    func testAGivenDescriptorIsSeenAtItsNumberAndAnEmptyEnvironmentIsEmpty() throws {
        let file = try XCTUnwrap(fopen("/etc/hostname", "r"))
        defer { fclose(file) }
        var launch = ChildLaunch.shell("env | wc -l; test -r /dev/fd/5 && echo given")
        launch.inheritsEnvironment = false
        launch.descriptors = [5: fileno(file)]
        let text = try output(of: launch).text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(text.last, "given")
        // sh itself sets PWD (and dash nothing else).
        XCTAssertLessThanOrEqual(Int(text.first ?? "") ?? 99, 1)
    }

    func testStandardErrorIsKeptForItsLastLineAndTheExitCodeIsReported() throws {
        let process = try ChildProcess(.shell("echo first >&2; echo 'last one' >&2; exit 3"))
        _ = try process.collect(deadline: Date().addingTimeInterval(10), limit: 100)
        XCTAssertEqual(process.wait()?.code, 3)
        XCTAssertEqual(process.lastErrorLine, "last one")
    }

    func testAChildPastItsDeadlineIsKilledWithWhatItStarted() throws {
        var launch = ChildLaunch.shell("sleep 30 & echo $! ; wait")
        launch.ownProcessGroup = true
        let process = try ChildProcess(launch)
        let started = Date()
        XCTAssertThrowsError(try process.collect(deadline: Date().addingTimeInterval(0.5), limit: 100)) { error in
            guard case ChildProcess.CollectFailure.timedOut = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(process.wait(deadline: Date().addingTimeInterval(1))?.signal, SIGKILL)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testAProgramThatCannotBeStartedIsAStartFailure() {
        XCTAssertThrowsError(try ChildProcess(ChildLaunch(executable: "/nonexistent/program", arguments: ["program"]))) { error in
            guard case ChildProcess.StartFailure.notStarted(ENOENT) = error else { return XCTFail("\(error)") }
        }
    }
}
