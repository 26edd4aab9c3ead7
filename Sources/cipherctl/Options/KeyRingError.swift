/// A key ring file that cannot be read as one: which line, and what is wrong with it.
struct KeyRingError: Error {
    let line: Int
    let problem: String
}
