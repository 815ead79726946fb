import Foundation

/// Which addresses a request may connect to, judged on each address libcurl is about to connect
/// to, after DNS: a name that resolves to an internal address is caught however it was spelt,
/// and there is no second lookup to race.
///
/// `publicOnly` refuses what is not on the public internet: loopback, private (RFC 1918, unique
/// local), link-local (cloud metadata at 169.254.169.254), shared (100.64/10), unspecified,
/// benchmarking, multicast and reserved ranges, and IPv4 inside IPv6 (mapped, NAT64, 6to4) by the IPv4
/// rules; IPv4-compatible and Teredo addresses, whose IPv4 cannot be trusted, are refused.
public enum AddressRule: Sendable, Equatable {
    case any
    case publicOnly

    func admits(_ address: sockaddr_storage) -> Bool {
        switch self {
        case .any: return true
        case .publicOnly: return Self.isPublic(address)
        }
    }

    static func isPublic(_ storage: sockaddr_storage) -> Bool {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let v4 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            return isPublic(v4: UInt32(bigEndian: v4.sin_addr.s_addr))
        case AF_INET6:
            let v6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
            return isPublic(v6: bytes)
        default:
            return false
        }
    }

    static func isPublic(v4 address: UInt32) -> Bool {
        let refused: [(UInt32, Int)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
            (0xC000_0000, 24), (0xC000_0200, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xC633_6400, 24), (0xCB00_7100, 24),
            (0xE000_0000, 4), (0xF000_0000, 4)
        ]
        return !refused.contains { network, bits in address >> (32 - bits) == network >> (32 - bits) }
    }

    static func isPublic(v6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return false }
        let v4At = { (i: Int) in UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3]) }
        let prefix = { (head: [UInt8]) in bytes.starts(with: head) }
        // IPv4 carried inside IPv6 is judged by the IPv4 rules, wherever the stack may route it.
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return isPublic(v4: v4At(12)) }  // ::ffff:a.b.c.d
        if prefix([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) { return isPublic(v4: v4At(12)) }  // 64:ff9b::/96 NAT64
        if prefix([0x20, 0x02]) { return isPublic(v4: v4At(2)) }  // 2002::/16 6to4
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return false }  // ::, ::1 and ::a.b.c.d (IPv4-compatible, deprecated)
        if prefix([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01]) { return false }  // 64:ff9b:1::/48 local NAT64
        if prefix([0x01, 0x00, 0, 0, 0, 0, 0, 0]) { return false }  // 100::/64 discard
        if prefix([0x20, 0x01, 0x00, 0x00]) { return false }  // 2001::/32 Teredo: its IPv4 is obscured, so never judged
        if prefix([0x20, 0x01, 0x0D, 0xB8]) || (prefix([0x3F, 0xFF]) && bytes[2] & 0xF0 == 0) { return false }  // documentation
        if prefix([0x20, 0x01, 0x00, 0x02, 0x00, 0x00]) { return false }  // 2001:2::/48 benchmarking
        if prefix([0x20, 0x01, 0x00]) && bytes[3] & 0xF0 == 0x10 { return false }  // 2001:10::/28 ORCHID
        if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return false }  // fec0::/10 site-local
        if bytes[0] == 0xFF { return false }  // multicast
        return true
    }

    /// An address as text, for messages.
    static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            var v4 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }.sin_addr
            inet_ntop(AF_INET, &v4, &text, socklen_t(text.count))
        case AF_INET6:
            var v6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }.sin6_addr
            inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count))
        default:
            return "an address of family \(storage.ss_family)"
        }
        return String(cString: text)
    }
}
