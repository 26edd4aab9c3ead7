#ifndef ROWFORMAT_H
#define ROWFORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlcipher/sqlite3.h>

// A statement's rows written as csv or json lines, formatted on a second thread: no printf,
// no allocation per value. `CSVResultWriter` and `JSONResultWriter` say what each format
// promises.

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

/// Where formatted bytes go: `write` gets each chunk and returns 0, or anything else to stop
/// the run (the output was closed, say); it is called on the formatting thread.
typedef int (*rowformat_write)(void *context, const uint8_t *bytes, size_t length);

/// One result set's rows to format: the statement, standing on its first row.
typedef struct rowformat_run {
    sqlite3_stmt *statement;
    const rowformat_layout *layout;
    /// json objects (`rowformat_layout.lines` says which kind), else csv lines.
    int json;
    rowformat_write write;
    void *context;
    /// Out: the rows written, the current one included.
    long rows;
} rowformat_run;

/// Writes the statement's current row and every row after it, stepping the statement on
/// this thread while a second thread formats the rows and hands them to `write`: the values
/// of each row are copied into batches that the two threads pass between them, so SQLite
/// is only ever called on this thread. Returns SQLITE_DONE when every row was written,
/// SQLite's result code when a step failed (the rows before it written first), and
/// SQLITE_ABORT when `write` stopped the run or memory ran out (no step after that).
int rowformat_pipe(rowformat_run *run);

/// A REAL as SQLite renders it as text (`%!.15g`); with `round_trip`, 17 digits when 15 do
/// not read back (strtod) as the same double, and -0.0 as "-0.0". Exactly
/// `csqlcipher_format_real`'s bytes, most of them without printf. `buffer` holds 40 bytes.
int rowformat_real(double value, int round_trip, char *buffer);

/// An integer in decimal; `buffer` holds 20 bytes. Returns the length.
int rowformat_integer(int64_t value, char *buffer);

#endif
