/// SQLCipher's HMAC salt mask (`PRAGMA cipher_hmac_salt_mask`) is one value for the whole
/// process, read whenever a connection derives its keys. This gate lets connections that
/// derive under one mask do so at once, and makes a connection that needs another wait
/// until they are done before it changes the value.
///
/// It stays out of the way until a mask other than SQLCipher's 0x3a is first asked for:
/// before that nothing changes the value, so no connection waits.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/ (cipher_hmac_salt_mask)
final class SaltMaskGate: @unchecked Sendable {
    static let shared = SaltMaskGate()
    static let defaultMask: UInt8 = 0x3a

    private let condition = Condition()
    private var current = SaltMaskGate.defaultMask
    private var holders = 0
    private var changed = false
    private var changes = 0

    /// How often the mask has been changed in this process.
    var switches: Int {
        condition.lock()
        defer { condition.unlock() }
        return changes
    }

    /// Runs `body`, which derives `connection`'s keys, with SQLCipher's mask set to `mask`;
    /// `body` is told whether the gate is in use (then it must derive before it returns).
    func derive<Result>(_ mask: UInt8, on connection: Connection, _ body: (Bool) throws -> Result) throws -> Result {
        guard try enter(mask, on: connection) else { return try body(false) }
        defer { leave() }
        return try body(true)
    }

    /// Waits until the mask can be `mask`, sets it, and counts the caller in; false (and
    /// nothing held) while no other mask was ever asked for.
    private func enter(_ mask: UInt8, on connection: Connection) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard changed || mask != Self.defaultMask else { return false }
        while holders > 0, current != mask { condition.wait() }
        if current != mask {
            try connection.execute("PRAGMA cipher_hmac_salt_mask = \"x'\(Hex.encode([mask]))'\"")
            current = mask
            changed = true
            changes += 1
        }
        holders += 1
        return true
    }

    private func leave() {
        condition.lock()
        holders -= 1
        if holders == 0 { condition.broadcast() }
        condition.unlock()
    }
}
