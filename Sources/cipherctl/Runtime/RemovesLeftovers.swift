import CipherKit

/// A report that lists the temporary files of interrupted runs its operation removed.
protocol RemovesLeftovers {
    var removedLeftovers: [String] { get set }
}

extension RekeyReport: RemovesLeftovers {}
extension ExportReport: RemovesLeftovers {}
extension PlaintextHeaderReport: RemovesLeftovers {}
