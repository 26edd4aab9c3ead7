/// One row of `sqlite_schema` with SQL: a table, index, view or trigger.
struct SchemaEntry: Equatable {
    let type: String
    let name: String
    let table: String
    let sql: String
}
