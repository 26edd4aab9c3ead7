/// Standard output can take no more: its reader closed the pipe (`reason` nil), or the
/// write failed for another reason.
struct OutputClosed: Error, Equatable {
    var reason: String?
}
