import Foundation

/// SplitMix64: small, fast and the same on every machine, so that a seeded sweep replays.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

extension SeededGenerator {
    /// A generator for a sweep: seeded from the environment variable `variable` when it is
    /// set (to replay a run), else at random; the seed is printed with how to replay it.
    public static func forSweep(_ name: String, variable: String) -> (generator: SeededGenerator, seed: UInt64) {
        let seed = ProcessInfo.processInfo.environment[variable].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
        print("\(name) seed \(seed) (replay with \(variable)=\(seed))")
        return (SeededGenerator(seed: seed), seed)
    }
}

/// How many cases a sweep runs: `quick` in the suite, more when Scripts/soak widens it
/// through the environment variable `variable`.
public func sweepCases(_ variable: String, quick: Int) -> Int {
    ProcessInfo.processInfo.environment[variable].flatMap { Int($0) } ?? quick
}
