import CipherKit

/// A failure of the front end's own that knows its hint better than its reason's.
protocol HintedFailure: CipherKitFailure {
    var hint: String? { get }
}
