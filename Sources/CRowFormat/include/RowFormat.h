#ifndef ROWFORMAT_H
#define ROWFORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlcipher/sqlite3.h>

// A statement's current row written as one line of csv or json straight into an output
// buffer: no value copied, no allocation. The bytes are those of the Swift writers
// (`CSVResultWriter`, `JSONResultWriter`), which say what each format promises.

/// How a blob is written: raw bytes, lowercase hex, or base64 (`BlobEncoding`); in json,
/// ROWFORMAT_BLOB_TAGGED is the tagged object of `JSONTag`.
enum {
    ROWFORMAT_BLOB_RAW = 0,
    ROWFORMAT_BLOB_HEX = 1,
    ROWFORMAT_BLOB_BASE64 = 2,
    ROWFORMAT_BLOB_TAGGED = 3,
};

/// What a row's writer needs besides the statement: the columns, how NULL and blobs are
/// written, and (json) each column's key, quoted and followed by a colon, one after another.
typedef struct rowformat_layout {
    int columns;
    int blob_encoding;
    const uint8_t *null_text;
    size_t null_length;
    const uint8_t *keys;
    const size_t *key_lengths;
    /// json: one object a line (JSON Lines) rather than an array's element.
    int lines;
} rowformat_layout;

/// An output window: bytes are written at `at` up to `end`; a write that does not fit sets
/// `overflow` and writes nothing more.
typedef struct rowformat_out {
    uint8_t *at;
    uint8_t *end;
    int overflow;
} rowformat_out;

/// The current row as csv (CRLF at the end). Returns the bytes written, or -1 when they do
/// not fit in `capacity` (the caller makes room and calls again: the row stays until the
/// next step).
long rowformat_csv_row(sqlite3_stmt *statement, const rowformat_layout *layout, uint8_t *out, size_t capacity);

/// The current row as a json object; `first` says whether it is the result set's first row
/// (no comma before it). Returns as `rowformat_csv_row` does.
long rowformat_json_row(sqlite3_stmt *statement, const rowformat_layout *layout, int first, uint8_t *out, size_t capacity);

/// A REAL as SQLite renders it as text (`%!.15g`); with `round_trip`, 17 digits when 15 do
/// not read back (strtod) as the same double, and -0.0 as "-0.0". Exactly
/// `csqlcipher_format_real`'s bytes, most of them without printf. `buffer` holds 40 bytes.
int rowformat_real(double value, int round_trip, char *buffer);

/// An integer in decimal; `buffer` holds 20 bytes. Returns the length.
int rowformat_integer(int64_t value, char *buffer);

#endif
