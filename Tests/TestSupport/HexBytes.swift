/// Bytes from hexadecimal text (two digits a byte, either case), as the shell's `hex()`
/// prints them; the tests compare what the tools wrote with it.
public enum HexBytes {
    public static func decode(_ hex: some StringProtocol) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
