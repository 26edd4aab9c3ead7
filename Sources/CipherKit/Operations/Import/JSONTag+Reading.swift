import FoundationEssentials

extension JSONTag {
    /// Why an object that says it is tagged (its `$base64` is true) is not as `JSONTag` writes one.
    struct Malformed: Error {
        let reason: String
    }

    /// The blob or text a tagged object stands for; nil for an object that is not tagged
    /// (it is then kept as JSON text).
    ///
    /// - Throws: `Malformed` for a tagged object with other members, no base64 `encoded`
    ///   string, or a `type` other than "blob" or "text".
    static func value(of members: [JSONMember]) throws -> ImportValue? {
        guard members.contains(where: { $0.key == marker && $0.value == .bool(true) }) else { return nil }
        var encodedBytes: [UInt8]?
        var isText = false
        for member in members where member.key != marker {
            switch (member.key, member.value) {
            case (encoded, .string(let text)):
                encodedBytes = text
            case (type, .string(let name)) where name == Array("text".utf8) || name == Array("blob".utf8):
                isText = name == Array("text".utf8)
            default:
                throw Malformed(reason: #"a {"$base64": true} object takes an "encoded" base64 string and an optional "type" ("blob" or "text"), not '\#(member.key)' as written"#)
            }
        }
        guard let encodedBytes, let data = Data(base64Encoded: Data(encodedBytes)) else {
            throw Malformed(reason: #"a {"$base64": true} object needs "encoded": a base64 string (RFC 4648, padded)"#)
        }
        return isText ? .text(Array(data)) : .blob(Array(data))
    }
}
