/// A part of the manual page that belongs to no one command: the safety model, the files,
/// the security notes. Plain text; `ManPage` escapes it for roff.
struct ManualSection {
    /// The heading, upper case as man pages have it: `FILES`.
    let title: String
    /// Paragraphs of plain sentences.
    let paragraphs: [String]
    /// A tagged list after the paragraphs: `(tag, text)`.
    let items: [(tag: String, text: String)]

    init(_ title: String, paragraphs: [String], items: [(tag: String, text: String)] = []) {
        self.title = title
        self.paragraphs = paragraphs
        self.items = items
    }
}
