/// What a recovery's writer needs to know of the source's losses, as its b-trees show them.
struct RecoveryDamage {
    /// The tables that lost pages or values (`lost_and_found` among them when pages no tree
    /// reaches were lost).
    var tables: Set<String>
    /// The indexes that lost pages.
    var indexes: Set<String>
    /// Every table the source's schema names.
    var sourceTables: Set<String>

    init(losses: [RecoveryLoss], survey: PageOwners) {
        tables = Set(losses.compactMap(\.table))
        indexes = Set(losses.compactMap { loss in loss.owner.flatMap { $0.hasPrefix("index ") ? String($0.dropFirst(6)) : nil } })
        sourceTables = survey.tables
    }
}
