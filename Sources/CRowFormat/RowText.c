// A row's values as csv or json, written straight into an output window.
#include "RowFormatInternal.h"
#include <math.h>

/// The bytes that make the shell quote a csv field (its `needCsvQuote` rule, `CSVResultWriter`):
/// control characters and space, `"`, `'`, a comma, and every byte from 0x7F up.
static const uint8_t csv_quote_table[256] = {
    [0x00 ... 0x20] = 1, [0x22] = 1, [0x27] = 1, [0x2C] = 1, [0x7F ... 0xFF] = 1,
};

static void csv_field(rowformat_out *out, const uint8_t *bytes, size_t length) {
    int quote = length == 0;
    for (size_t i = 0; i < length && !quote; i++) quote = csv_quote_table[bytes[i]];
    if (!quote) return rowformat_put(out, bytes, length);
    if (!rowformat_room(out, 2 * length + 2)) return;
    uint8_t *at = out->at;
    *at++ = '"';
    for (size_t i = 0; i < length; i++) {
        *at++ = bytes[i];
        if (bytes[i] == '"') *at++ = '"';
    }
    *at++ = '"';
    out->at = at;
}

static void put_integer(rowformat_out *out, int64_t value) {
    char text[24];
    rowformat_put(out, text, (size_t)rowformat_integer(value, text));
}

static void csv_blob(rowformat_out *out, const rowformat_value *value, int encoding) {
    // Hex and base64 digits never need quotes; an empty field always does.
    if (encoding == ROWFORMAT_BLOB_RAW || value->length == 0) return csv_field(out, value->bytes, value->length);
    rowformat_encoded(out, value->bytes, value->length, encoding);
}

static void csv_value(rowformat_out *out, const rowformat_value *value, const rowformat_layout *layout) {
    switch (value->type) {
    case SQLITE_INTEGER:
        return put_integer(out, value->integer);
    case SQLITE_FLOAT: {
        char text[40];
        return rowformat_put(out, text, (size_t)rowformat_real(value->real, 0, text));
    }
    case SQLITE_TEXT:
        return csv_field(out, value->bytes, value->length);
    case SQLITE_BLOB:
        return csv_blob(out, value, layout->blob_encoding);
    default:
        return rowformat_put(out, layout->null_text, layout->null_length);
    }
}

void rowformat_csv_row(rowformat_out *out, const rowformat_value *values, const rowformat_layout *layout) {
    for (int column = 0; column < layout->columns && !out->overflow; column++) {
        if (column > 0) rowformat_put(out, ",", 1);
        csv_value(out, &values[column], layout);
    }
    rowformat_put(out, "\r\n", 2);
}

/// The escaped form of one byte of a JSON string (`JSONString`): its length, 1 when the byte
/// stands for itself.
static int json_escape(uint8_t byte, uint8_t *to) {
    static const char hex[] = "0123456789abcdef";
    char letter = byte == '"' ? '"' : byte == '\\' ? '\\' : byte == '\n' ? 'n' : byte == '\r' ? 'r'
        : byte == '\t' ? 't' : byte == '\b' ? 'b' : byte == '\f' ? 'f' : 0;
    if (letter) {
        to[0] = '\\';
        to[1] = (uint8_t)letter;
        return 2;
    }
    if (byte >= 0x20) {
        to[0] = byte;
        return 1;
    }
    to[0] = '\\', to[1] = 'u', to[2] = '0', to[3] = '0', to[4] = (uint8_t)hex[byte >> 4], to[5] = (uint8_t)hex[byte & 15];
    return 6;
}

static void json_string(rowformat_out *out, const uint8_t *text, size_t length) {
    size_t needed = 2;
    if ((size_t)(out->end - out->at) < 6 * length + 2) {
        uint8_t scratch[6];
        for (size_t i = 0; i < length; i++) needed += (size_t)json_escape(text[i], scratch);
        if (!rowformat_room(out, needed)) return;
    }
    uint8_t *at = out->at;
    *at++ = '"';
    for (size_t i = 0; i < length; i++) {
        uint8_t byte = text[i];
        if (byte >= 0x20 && byte != '"' && byte != '\\') *at++ = byte;
        else at += json_escape(byte, at);
    }
    *at++ = '"';
    out->at = at;
}

/// The tagged object of `JSONTag`: a blob, or (with `text`) text that is not UTF-8.
static void json_tag(rowformat_out *out, const uint8_t *bytes, size_t length, int text) {
    static const char opening[] = "{\"$base64\":true,\"encoded\":\"";
    static const char text_type[] = ",\"type\":\"text\"";
    rowformat_put(out, opening, sizeof opening - 1);
    rowformat_encoded(out, bytes, length, ROWFORMAT_BLOB_BASE64);
    rowformat_put(out, "\"", 1);
    if (text) rowformat_put(out, text_type, sizeof text_type - 1);
    rowformat_put(out, "}", 1);
}

static void json_blob(rowformat_out *out, const uint8_t *bytes, size_t length, int encoding) {
    if (encoding == ROWFORMAT_BLOB_TAGGED) return json_tag(out, bytes, length, 0);
    rowformat_put(out, "\"", 1);
    rowformat_encoded(out, bytes, length, encoding);
    rowformat_put(out, "\"", 1);
}

static void json_value(rowformat_out *out, const rowformat_value *value, int encoding) {
    switch (value->type) {
    case SQLITE_INTEGER:
        return put_integer(out, value->integer);
    case SQLITE_FLOAT: {
        if (!isfinite(value->real)) return rowformat_put(out, "null", 4);
        char text[40];
        return rowformat_put(out, text, (size_t)rowformat_real(value->real, 1, text));
    }
    case SQLITE_TEXT:
        if (rowformat_valid_utf8(value->bytes, value->length)) return json_string(out, value->bytes, value->length);
        return json_tag(out, value->bytes, value->length, 1);
    case SQLITE_BLOB:
        return json_blob(out, value->bytes, value->length, encoding);
    default:
        return rowformat_put(out, "null", 4);
    }
}

void rowformat_json_row(rowformat_out *out, const rowformat_value *values, const rowformat_layout *layout, int first) {
    if (!layout->lines) rowformat_put(out, first ? "\n" : ",\n", first ? 1 : 2);
    rowformat_put(out, "{", 1);
    const uint8_t *key = layout->keys;
    for (int column = 0; column < layout->columns && !out->overflow; column++) {
        if (column > 0) rowformat_put(out, ",", 1);
        rowformat_put(out, key, layout->key_lengths[column]);
        key += layout->key_lengths[column];
        json_value(out, &values[column], layout->blob_encoding);
    }
    rowformat_put(out, layout->lines ? "}\n" : "}", layout->lines ? 2 : 1);
}
