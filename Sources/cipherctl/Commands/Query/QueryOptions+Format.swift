import CipherKit

/// How `query` prints its rows: the format and what shapes it.
extension QueryOptions {
    /// `--format`, else table on a terminal and csv otherwise. `--json` shapes only errors and
    /// the run's report, never the rows: given alone it would be ambiguous, so it is refused.
    static func format(_ arguments: ParsedArguments) throws -> ResultFormat {
        guard let name = arguments.value(Self.format) else {
            if arguments.has(OutputOptions.json) {
                throw UsageError(
                    "\(OutputOptions.json.name) shapes errors and the report, not the rows", command: arguments.command,
                    hint: "add \(Self.format.name) json (or jsonl) for JSON rows")
            }
            return StandardOutput.isTerminal ? .table : .csv
        }
        guard let format = ResultFormat(rawValue: name.lowercased()) else {
            throw UsageError("\(Self.format.name) must be one of " + ResultFormat.allCases.map(\.rawValue).joined(separator: ", "), command: arguments.command)
        }
        return format
    }

    /// `--no-header`, `--null` and `--blob`, each checked against `format`.
    static func resultOptions(_ arguments: ParsedArguments, format: ResultFormat) throws -> ResultOptions {
        var options = ResultOptions()
        if arguments.has(Self.noHeader) {
            // value prints no header: the option is accepted there, so that switching a
            // script from csv or tsv to value needs no other change.
            guard format.hasHeader || format == .value else {
                throw UsageError("\(Self.noHeader.name) applies to the csv, tsv, table and value formats", command: arguments.command)
            }
            options.header = false
        }
        if let text = arguments.value(Self.nullText) {
            guard !format.isJSON else {
                throw UsageError("\(Self.nullText.name) applies to the text formats; JSON writes null", command: arguments.command)
            }
            options.nullText = text
        }
        if let name = arguments.value(Self.blob) {
            guard let encoding = BlobEncoding(rawValue: name.lowercased()) else {
                throw UsageError("\(Self.blob.name) must be raw, hex or base64", command: arguments.command)
            }
            if format.isJSON, encoding == .raw {
                throw UsageError("JSON cannot hold raw bytes: use \(Self.blob.name) hex or base64", command: arguments.command)
            }
            options.blobEncoding = encoding
        }
        return options
    }
}
