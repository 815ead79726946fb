@testable import CurlHTTP
import Foundation
import Testing

/// A rate-limit slot's "send by" is checked once the connection is ready, just before the
/// request is written (libcurl's pre-request callback): a thread held between the first check
/// and the wire must not send calls of several slots at once (RateLimitTests saw 27 calls in 5 s
/// under a limit of 26 when the whole suite loaded 2 cores).
@Suite("Send by")
struct SendByTests {
    /// A listener on loopback that accepts one connection and counts the bytes it is sent
    /// within `seconds`, on a thread of its own.
    final class Listener: @unchecked Sendable {
        let socket: Int32
        let port: Int

        init() throws {
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
            guard bound == 0, listen(fd, 4) == 0 else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) } }
            socket = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(socket) }

        /// Bytes received on the next connection until it closes or `seconds` pass.
        func bytes(within seconds: Int) async -> Int {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { [self] in
                    let connection = accept(socket, nil, nil)
                    guard connection >= 0 else { return continuation.resume(returning: -1) }
                    defer { close(connection) }
                    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
                    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = recv(connection, &buffer, buffer.count, 0)
                    continuation.resume(returning: max(count, 0))
                }
            }
        }
    }

    @Test("a slot already past when the connection is ready: nothing is written, the error says the slot was missed; one still ahead: the request goes")
    func checkedBeforeTheWire() async throws {
        let listener = try Listener()
        let request = HTTPRequest(method: "POST", url: "http://127.0.0.1:\(listener.port)/predict", body: .bytes(Data("photo".utf8)), timeoutSeconds: 3)
        async let received = listener.bytes(within: 2)
        let missed: Result<HTTPResponse, HTTPError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(HTTPError) in
                    try CurlEasy().perform(request, connectTimeoutSeconds: 3, sendBy: ContinuousClock.now - .milliseconds(1))
                })
            }
        }
        #expect(await received == 0, "the request was written after its slot")
        guard case .failure(let error) = missed else { Issue.record("sent after its slot"); return }
        #expect(error.code == .slotMissed, "\(error)")

        async let sent = listener.bytes(within: 2)
        let ahead: Result<HTTPResponse, HTTPError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(HTTPError) in
                    try CurlEasy().perform(request, connectTimeoutSeconds: 3, sendBy: ContinuousClock.now + .seconds(60))
                })
            }
        }
        #expect(await sent > 0, "a request within its slot is written")
        if case .failure(let error) = ahead { #expect(error.code != .slotMissed, "\(error)") }
    }
}
