/// SQLCipher's HMAC salt mask (`PRAGMA cipher_hmac_salt_mask`) is one value for the whole
/// process, read whenever a connection derives its keys. Every connection derives its keys
/// inside this gate: connections under one mask derive at once, and a connection that needs
/// another mask waits until they are done before it changes the value. A connection that
/// derived outside it could meet a mask another thread had just set.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/ (cipher_hmac_salt_mask)
final class SaltMaskGate: @unchecked Sendable {
    static let shared = SaltMaskGate()
    static let defaultMask: UInt8 = 0x3a

    private let condition = Condition()
    private var current = SaltMaskGate.defaultMask
    private var holders = 0

    /// Runs `body`, which must derive `connection`'s keys before it returns, with SQLCipher's
    /// mask set to `mask`.
    func derive<Result>(_ mask: UInt8, on connection: Connection, _ body: () throws -> Result) throws -> Result {
        try enter(mask, on: connection)
        defer { leave() }
        return try body()
    }

    /// Waits until the mask can be `mask`, sets it, and counts the caller in.
    private func enter(_ mask: UInt8, on connection: Connection) throws {
        condition.lock()
        defer { condition.unlock() }
        while holders > 0, current != mask { condition.wait() }
        if current != mask {
            try connection.execute("PRAGMA cipher_hmac_salt_mask = \"x'\(Hex.encode([mask]))'\"")
            current = mask
        }
        holders += 1
    }

    private func leave() {
        condition.lock()
        holders -= 1
        if holders == 0 { condition.broadcast() }
        condition.unlock()
    }
}
