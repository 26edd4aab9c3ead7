import CipherKit

/// The key one audited file gets when each file may have its own (a key ring, a key
/// command template): the key to audit it with, the label of the ring entry that opened
/// it, and what to say instead of the audit's own words when it could not be opened.
struct FileKeyChoice {
    let key: KeyMaterial?
    var label: String? = nil
    var problem: String? = nil
}
