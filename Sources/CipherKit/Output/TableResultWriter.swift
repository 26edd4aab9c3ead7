import FoundationEssentials

import CSQLCipher

/// An aligned ASCII box per result set, with a header: the one format that buffers, since
/// each column's width depends on every row. Numbers are right-aligned; tabs and line
/// breaks inside values show as `\t`, `\n`, `\r` so the box stays aligned.
final class TableResultWriter: BufferedResultWriter {
    private var cells: [String] = []
    private var numeric: [Bool] = []

    override func begin(columns: [String]) throws {
        try super.begin(columns: columns)
        cells.removeAll(keepingCapacity: true)
        numeric.removeAll(keepingCapacity: true)
    }

    override func write(_ statement: Statement) throws {
        for index in 0..<columns.count {
            field.removeAll(keepingCapacity: true)
            TextRendering.append(column: index, of: statement, options: options, to: &field)
            var text = String(decoding: field, as: UTF8.self)
            if text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\r\n" }) {
                text = text.replacing("\r\n", with: "\\r\\n").replacing("\n", with: "\\n")
                    .replacing("\r", with: "\\r").replacing("\t", with: "\\t")
            }
            cells.append(text)
            let type = statement.columnType(at: index)
            numeric.append(type == SQLITE_INTEGER || type == SQLITE_FLOAT)
        }
    }

    override func end() throws {
        let count = columns.count
        guard count > 0, !cells.isEmpty else { return }
        var widths = columns.map { options.header ? $0.count : 0 }
        for (index, cell) in cells.enumerated() {
            widths[index % count] = max(widths[index % count], cell.count)
        }
        let rule = "+" + widths.map { String(repeating: "-", count: $0 + 2) + "+" }.joined() + "\n"
        func line(_ values: ArraySlice<String>, numbers: ArraySlice<Bool>?) -> String {
            var text = "|"
            for (offset, value) in values.enumerated() {
                let padding = String(repeating: " ", count: widths[offset] - value.count)
                let right = numbers.map { $0[$0.startIndex + offset] } ?? false
                text += " " + (right ? padding + value : value + padding) + " |"
            }
            return text + "\n"
        }
        try output.write(rule)
        if options.header {
            try output.write(line(columns[...], numbers: nil))
            try output.write(rule)
        }
        var start = 0
        while start < cells.count {
            try output.write(line(cells[start..<(start + count)], numbers: numeric[start..<(start + count)]))
            start += count
        }
        try output.write(rule)
        cells.removeAll(keepingCapacity: true)
        numeric.removeAll(keepingCapacity: true)
    }
}
