import Foundation

/// A listening socket on a loopback address other than 127.0.0.1 (127.0.0.2 by default: a
/// "forbidden host" that is still this machine), which only tells whether anyone connected. No
/// test sends traffic off the machine.
final class ConnectionTrap {
    let address: String
    let port: Int
    private let socket: Int32

    init(address: String = "127.0.0.2") throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(address)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) } }
        guard socket >= 0, bound == 0, listen(socket, 16) == 0 else {
            close(socket)
            throw TestSetupError("cannot listen on \(address)")
        }
        var actual = sockaddr_in(), length = size
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        self.socket = socket
        self.address = address
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit { close(socket) }

    /// Whether a connection came in (it waits in the backlog until accepted).
    var wasContacted: Bool {
        let client = accept(socket, nil, nil)
        if client >= 0 { close(client) }
        return client >= 0
    }
}
