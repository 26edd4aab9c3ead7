/// One member of a JSON object: its key and value.
struct JSONMember: Equatable {
    let key: String
    let value: JSONTree
}
