// Stepping and formatting on two threads (`rowformat_pipe`).
//
// The stepping thread copies each row's values into a batch (a type byte, then eight bytes
// of an integer or a real, or a length and the bytes of a text or a blob); full batches go
// to the formatting thread through a ring of PIPE_SLOTS, so a batch belongs to one thread
// at a time: the stepper fills the slot after the ones that are ready, and the formatter
// reads the oldest ready one and only then gives it back.
#include "RowFormatInternal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { PIPE_SLOTS = 4, BATCH_BYTES = 1 << 18, CHUNK_BYTES = 1 << 16 };

typedef struct batch {
    uint8_t *bytes;
    size_t used, size;
    long rows;
} batch;

typedef struct pipe_state {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    batch slots[PIPE_SLOTS];
    int first_ready, ready;
    /// The stepper has handed over its last batch.
    int done;
    /// The formatter stopped: `write` refused, or memory ran out.
    int stopped;
    rowformat_run *run;
} pipe_state;

static int batch_reserve(batch *b, size_t more) {
    if (b->used + more <= b->size) return 1;
    size_t size = b->size * 2 > b->used + more ? b->size * 2 : b->used + more;
    uint8_t *bytes = realloc(b->bytes, size);
    if (bytes == NULL) return 0;
    b->bytes = bytes;
    b->size = size;
    return 1;
}

/// Copies one value of the current row into the batch. Each value is read through its
/// sqlite3_value: the sqlite3_column_* calls each look the column up again.
static int batch_add_value(batch *b, sqlite3_stmt *statement, int column) {
    sqlite3_value *cell = sqlite3_column_value(statement, column);
    int type = sqlite3_value_type(cell);
    const void *bytes = NULL;
    size_t length = 0;
    if (type == SQLITE_TEXT) bytes = sqlite3_value_text(cell);
    if (type == SQLITE_BLOB) bytes = sqlite3_value_blob(cell);
    if (type == SQLITE_TEXT || type == SQLITE_BLOB) length = (size_t)sqlite3_value_bytes(cell);
    if (!batch_reserve(b, 1 + sizeof(size_t) + (length > 8 ? length : 8))) return 0;
    uint8_t *at = b->bytes + b->used;
    *at++ = (uint8_t)type;
    if (type == SQLITE_INTEGER) {
        int64_t value = sqlite3_value_int64(cell);
        memcpy(at, &value, 8), at += 8;
    } else if (type == SQLITE_FLOAT) {
        double value = sqlite3_value_double(cell);
        memcpy(at, &value, 8), at += 8;
    } else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
        memcpy(at, &length, sizeof length), at += sizeof length;
        if (length > 0) memcpy(at, bytes, length), at += length;
    }
    b->used = (size_t)(at - b->bytes);
    return 1;
}

/// The values of the next row of a batch, from `at`; returns where the row after it starts.
static const uint8_t *batch_read_row(const uint8_t *at, rowformat_value *values, int columns) {
    for (int column = 0; column < columns; column++) {
        rowformat_value *value = &values[column];
        value->type = *at++;
        if (value->type == SQLITE_INTEGER) {
            memcpy(&value->integer, at, 8), at += 8;
        } else if (value->type == SQLITE_FLOAT) {
            memcpy(&value->real, at, 8), at += 8;
        } else if (value->type == SQLITE_TEXT || value->type == SQLITE_BLOB) {
            memcpy(&value->length, at, sizeof value->length), at += sizeof value->length;
            value->bytes = at, at += value->length;
        }
    }
    return at;
}

/// The formatting thread's output: bytes collected up to CHUNK_BYTES, then written.
typedef struct chunk {
    uint8_t *bytes;
    size_t count, size;
    rowformat_run *run;
} chunk;

static int chunk_write(chunk *c) {
    if (c->count == 0) return 1;
    int refused = c->run->write(c->run->context, c->bytes, c->count);
    c->count = 0;
    return refused == 0;
}

/// Formats one row into the chunk, writing the chunk first (or growing it, for a row larger
/// than it) when the row does not fit.
static int chunk_add_row(chunk *c, const rowformat_value *values, long index) {
    const rowformat_run *run = c->run;
    for (;;) {
        rowformat_out out = {c->bytes + c->count, c->bytes + c->size, 0};
        if (run->json) rowformat_json_row(&out, values, run->layout, index == 0);
        else rowformat_csv_row(&out, values, run->layout);
        if (!out.overflow) {
            c->count = (size_t)(out.at - c->bytes);
            return c->count < CHUNK_BYTES || chunk_write(c);
        }
        if (c->count > 0) {
            if (!chunk_write(c)) return 0;
            continue;
        }
        uint8_t *larger = realloc(c->bytes, c->size * 2);
        if (larger == NULL) return 0;
        c->bytes = larger;
        c->size *= 2;
    }
}

/// The next ready batch, waiting for it; NULL when the stepper is done and none is left.
static batch *pipe_take(pipe_state *pipe) {
    pthread_mutex_lock(&pipe->lock);
    while (pipe->ready == 0 && !pipe->done) pthread_cond_wait(&pipe->changed, &pipe->lock);
    batch *b = pipe->ready > 0 ? &pipe->slots[pipe->first_ready] : NULL;
    pthread_mutex_unlock(&pipe->lock);
    return b;
}

/// Gives the oldest ready batch back to the stepper; `failed` stops the run.
static void pipe_give_back(pipe_state *pipe, int failed) {
    pthread_mutex_lock(&pipe->lock);
    pipe->first_ready = (pipe->first_ready + 1) % PIPE_SLOTS;
    pipe->ready -= 1;
    if (failed) pipe->stopped = 1;
    pthread_cond_broadcast(&pipe->changed);
    pthread_mutex_unlock(&pipe->lock);
}

/// The formatting thread: every batch in turn, then what is left of the chunk.
static void *pipe_format(void *argument) {
    pipe_state *pipe = argument;
    rowformat_run *run = pipe->run;
    chunk c = {malloc(CHUNK_BYTES + 4096), 0, CHUNK_BYTES + 4096, run};
    rowformat_value *values = calloc((size_t)run->layout->columns + 1, sizeof(rowformat_value));
    int ok = c.bytes != NULL && values != NULL;
    long index = 0;
    batch *b;
    while ((b = pipe_take(pipe)) != NULL) {
        const uint8_t *at = b->bytes;
        for (long row = 0; ok && row < b->rows; row++, index++) {
            at = batch_read_row(at, values, run->layout->columns);
            ok = chunk_add_row(&c, values, index);
        }
        pipe_give_back(pipe, !ok);
    }
    if (ok && !chunk_write(&c)) ok = 0;
    if (!ok) {
        pthread_mutex_lock(&pipe->lock);
        pipe->stopped = 1;
        pthread_mutex_unlock(&pipe->lock);
    }
    free(c.bytes);
    free(values);
    return NULL;
}

/// Hands the filled batch to the formatter and waits for a free slot; 0 when the run stopped
/// (the slot must not be touched then).
static int pipe_hand_over(pipe_state *pipe, int *slot) {
    pthread_mutex_lock(&pipe->lock);
    pipe->ready += 1;
    pthread_cond_broadcast(&pipe->changed);
    while (pipe->ready == PIPE_SLOTS && !pipe->stopped) pthread_cond_wait(&pipe->changed, &pipe->lock);
    int going = !pipe->stopped;
    *slot = (pipe->first_ready + pipe->ready) % PIPE_SLOTS;
    pthread_mutex_unlock(&pipe->lock);
    return going;
}

/// The stepping thread's loop, from the current row; the last batch is handed over by the
/// caller (`*last` is it, or NULL when the run stopped with it handed over already).
static int pipe_step(pipe_state *pipe, batch **last) {
    rowformat_run *run = pipe->run;
    int slot = 0, code = SQLITE_ROW;
    batch *b = &pipe->slots[0];
    while (code == SQLITE_ROW) {
        for (int column = 0; column < run->layout->columns; column++) {
            if (!batch_add_value(b, run->statement, column)) {
                *last = b;
                return SQLITE_NOMEM;
            }
        }
        b->rows += 1;
        run->rows += 1;
        if (b->used >= BATCH_BYTES) {
            if (!pipe_hand_over(pipe, &slot)) {
                *last = NULL;
                return SQLITE_ABORT;
            }
            b = &pipe->slots[slot];
            b->used = 0;
            b->rows = 0;
        }
        code = sqlite3_step(run->statement);
    }
    *last = b;
    return code;
}

/// Hands over the last batch (when there is one) and says no more will come.
static void pipe_finish(pipe_state *pipe, batch *last) {
    pthread_mutex_lock(&pipe->lock);
    if (last != NULL && last->rows > 0) pipe->ready += 1;
    pipe->done = 1;
    pthread_cond_broadcast(&pipe->changed);
    pthread_mutex_unlock(&pipe->lock);
}

static void pipe_free(pipe_state *pipe) {
    for (int i = 0; i < PIPE_SLOTS; i++) free(pipe->slots[i].bytes);
    pthread_cond_destroy(&pipe->changed);
    pthread_mutex_destroy(&pipe->lock);
}

int rowformat_pipe(rowformat_run *run) {
    pipe_state pipe;
    memset(&pipe, 0, sizeof pipe);
    pthread_mutex_init(&pipe.lock, NULL);
    pthread_cond_init(&pipe.changed, NULL);
    pipe.run = run;
    run->rows = 0;
    int ready = 1;
    for (int i = 0; i < PIPE_SLOTS; i++) {
        pipe.slots[i].size = BATCH_BYTES + 4096;
        pipe.slots[i].bytes = malloc(pipe.slots[i].size);
        ready = ready && pipe.slots[i].bytes != NULL;
    }
    pthread_t formatter;
    if (!ready || pthread_create(&formatter, NULL, pipe_format, &pipe) != 0) {
        pipe_free(&pipe);
        return SQLITE_NOMEM;
    }
    batch *last = NULL;
    int code = pipe_step(&pipe, &last);
    pipe_finish(&pipe, code == SQLITE_NOMEM ? NULL : last);
    pthread_join(formatter, NULL);
    if (pipe.stopped && code == SQLITE_DONE) code = SQLITE_ABORT;
    pipe_free(&pipe);
    return code;
}
