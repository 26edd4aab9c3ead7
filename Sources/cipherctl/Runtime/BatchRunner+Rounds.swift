extension BatchRunner {
    /// Takes `items` in rounds of `size`: `prepare` gets ready for a round (its keys derived
    /// ahead, all at once), then `run` runs it and says whether to go on.
    func inRounds<Item>(_ items: [Item], of size: Int, prepare: ([Item]) -> Void, run: ([Item]) -> Bool) {
        for start in stride(from: 0, to: items.count, by: max(1, size)) {
            let round = Array(items[start..<min(start + max(1, size), items.count)])
            prepare(round)
            guard run(round) else { return }
        }
    }
}
