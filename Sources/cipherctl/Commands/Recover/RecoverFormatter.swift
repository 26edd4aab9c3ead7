import CipherKit

/// Renders a `RecoveryReport`: the pages lost, the rows each table kept, and what each loss
/// cost, as text or as one JSON object.
enum RecoverFormatter {
    /// The report as lines: what was lost, each table's rows, and what each loss cost.
    static func text(_ report: RecoveryReport, destination: String) -> String {
        let lost = report.lostPages.isEmpty ? "no page lost" : "\(report.lostPages.count) of \(report.pages) pages lost (" + pageList(report.lostPages) + ")"
        let tables = report.tables.map { "  \($0.table): \($0.rows) row\($0.rows == 1 ? "" : "s")" }
        let losses = report.losses.map { "  " + lossLine($0) }
        let notes = report.rebuiltIndexes.map { "full-text index of \($0) rebuilt from the rows kept" }
            + (report.droppedWALFrame.map { ["WAL frame \($0) is damaged (its salts or checksum): the commits from it on are lost (SQLite drops them too)"] } ?? [])
            + (report.walSetAside ? ["the -wal beside it holds no frame the key reads (another database's): the file was read without it"] : [])
            + (report.indexEntriesLeftOut > 0 ? [leftOutText(report.indexEntriesLeftOut, table: report.lostAndFoundTable ?? "lost_and_found")] : [])
        let orphans = report.lostAndFoundTable.flatMap { table in losses.isEmpty ? nil : ["rows missing from a table are in \(table) when their page survived below a lost one"] } ?? []
        return (["recovered into '\(destination)': \(lost)"] + tables + (losses.isEmpty ? [] : ["lost:"] + losses) + orphans + notes)
            .joined(separator: "\n") + "\n"
    }

    private static func leftOutText(_ count: Int, table: String) -> String {
        "\(count) entr\(count == 1 ? "y" : "ies") of index pages below a lost page left out of \(table): their tables kept those rows, and every index is made again"
    }

    /// `table t: pages 7-9; missing from it: rows with rowid 120 to 310; 2 rows kept with a value cut short (an overflow page lost)`.
    private static func lossLine(_ loss: RecoveryLoss) -> String {
        var line = "\(loss.owner ?? "owner unknown"): " + (loss.pages.count == 1 ? "page " : "pages ") + pageList(loss.pages)
        if !loss.rowids.isEmpty {
            line += "; missing from it: " + loss.rowids.map(rowidText).joined(separator: ", ")
        } else if loss.table == nil {
            line += " (" + noRowsText(loss.owner, pages: loss.pages.count) + ")"
        }
        if loss.rowsCutShort > 0 {
            line += "; \(loss.rowsCutShort) row\(loss.rowsCutShort == 1 ? "" : "s") kept with a value cut short (an overflow page lost)"
        }
        return line
    }

    /// What lost pages outside a table's rows cost.
    private static func noRowsText(_ owner: String?, pages: Int) -> String {
        switch owner {
        case nil: return "nothing read points at \(pages == 1 ? "it" : "them"): below another lost page"
        case "the schema"?: return "the tables' names and columns: their rows are in lost_and_found"
        case let owner? where owner.hasPrefix("index "): return "no row lost: the index is made again"
        default: return "no row lost"
        }
    }

    /// `rows with rowid 120 to 310`, `every row`.
    private static func rowidText(_ range: RowidRange) -> String {
        switch (range.first, range.upTo) {
        case (nil, nil): return "every row"
        case (let first?, nil): return "rows with rowid \(first) and up"
        case (nil, let last?): return "rows with rowid up to \(last)"
        case (let first?, let last?): return first == last ? "the row with rowid \(first)" : "rows with rowid \(first) to \(last)"
        }
    }

    /// `3, 7-9, 12`.
    private static func pageList(_ pages: [Int]) -> String {
        var ranges: [String] = [], start = pages.first ?? 0, previous = start
        for page in pages.dropFirst() + [Int.max] {
            if page == previous + 1 { previous = page; continue }
            ranges.append(start == previous ? "\(start)" : "\(start)-\(previous)")
            start = page
            previous = page
        }
        return ranges.joined(separator: ", ")
    }

    /// The report as one JSON object.
    static func json(_ report: RecoveryReport, destination: String) -> JSONValue {
        .object([
            ("destination", .string(destination)), ("pages", .integer(report.pages)),
            ("lost_pages", .array(report.lostPages.map { .integer($0) })),
            ("tables", .object(report.tables.map { ($0.table, .integer($0.rows)) })),
            ("rows_cut_short", .integer(report.rowsCutShort)),
            ("losses", .array(report.losses.map(lossJSON))),
            ("rebuilt_indexes", .array(report.rebuiltIndexes.map { .string($0) })),
            ("dropped_wal_frame", report.droppedWALFrame.map { .integer($0) } ?? .null),
            ("wal_set_aside", .bool(report.walSetAside)),
            ("index_entries_left_out", .integer(report.indexEntriesLeftOut)),
            ("lost_and_found_table", report.lostAndFoundTable.map { .string($0) } ?? .null),
        ])
    }

    private static func lossJSON(_ loss: RecoveryLoss) -> JSONValue {
        let bound = { (value: Int64?) in value.map { JSONValue.integer(Int($0)) } ?? .null }
        return .object([
            ("owner", loss.owner.map { .string($0) } ?? .null), ("table", loss.table.map { .string($0) } ?? .null),
            ("pages", .array(loss.pages.map { .integer($0) })),
            ("rowids", .array(loss.rowids.map { .object([("from", bound($0.first)), ("to", bound($0.upTo))]) })),
            ("rows_cut_short", .integer(loss.rowsCutShort)),
        ])
    }
}
