/// The end of an audit that found something (exit 8): how many files, and which findings.
struct AuditFindings: Error, Equatable {
    let files: Int
    let flagged: Int
    let codes: [String]

    var message: String {
        "\(flagged) of \(files) file\(files == 1 ? "" : "s") \(flagged == 1 ? "has" : "have") findings: " + codes.joined(separator: ", ")
    }
}
