import CipherKit

/// What a key ring gave one audited file: the key to audit it with (the ring's first when
/// none opened it), the label of the entry that opened it, and why none did.
struct RingChoice {
    let key: KeyMaterial?
    let label: String?
    let failure: CipherKitError?
}
