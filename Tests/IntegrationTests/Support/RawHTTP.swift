import Foundation

/// A bare HTTP/1.1 request over a socket bound to a chosen source address: 127.0.0.2 is a
/// loopback address the console counts as remote, so a test on one machine can be "remote".
/// Runs on a thread of its own (blocking socket calls stay off the cooperative pool).
enum RawHTTP {
    struct Answer {
        let status: Int
        let body: String
        /// Header lines as sent, name lowercased: ["set-cookie": "a=b; HttpOnly"].
        var headers: [String: String] = [:]
    }

    static func get(port: Int, path: String, from source: String = "127.0.0.1", headers: [String: String] = [:]) async -> Answer {
        await send(port: port, request: "GET \(path) HTTP/1.1\r\n", body: nil, source: source, headers: headers)
    }

    static func head(port: Int, path: String, from source: String = "127.0.0.1", headers: [String: String] = [:]) async -> Answer {
        await send(port: port, request: "HEAD \(path) HTTP/1.1\r\n", body: nil, source: source, headers: headers)
    }

    /// `onSent` hears when the request has been written to the socket, before the answer.
    /// `answerWithinSeconds`: how long the answer may take once sent, a guard against a hang.
    static func post(
        port: Int, path: String, body: String, from source: String = "127.0.0.1", headers: [String: String] = [:],
        answerWithinSeconds: Int = 60, onSent: @escaping @Sendable () -> Void = {}
    ) async -> Answer {
        await send(
            port: port, request: "POST \(path) HTTP/1.1\r\n", body: body, source: source,
            headers: headers.merging(["Content-Type": "application/x-www-form-urlencoded"]) { $1 },
            answerWithinSeconds: answerWithinSeconds, onSent: onSent)
    }

    private static func send(
        port: Int, request: String, body: String?, source: String, headers: [String: String],
        answerWithinSeconds: Int = 60, onSent: @escaping @Sendable () -> Void = {}
    ) async -> Answer {
        // A Host given in `headers` replaces the default (a DNS-rebinding page sends its own name).
        var text = request + (headers.keys.contains("Host") ? "" : "Host: 127.0.0.1:\(port)\r\n") + "Connection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let message = text
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: exchange(message, port: port, source: source, answerWithinSeconds: answerWithinSeconds, onSent: onSent))
            }
        }
    }

    private static func exchange(_ message: String, port: Int, source: String, answerWithinSeconds: Int, onSent: () -> Void) -> Answer {
        // Heard whatever happens, so a caller waiting for it never waits for ever.
        var heard = false
        defer { if !heard { onSent() } }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return Answer(status: 0, body: "socket failed") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: answerWithinSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func address(_ ip: String, _ port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr(ip)
            return address
        }
        var local = address(source, 0), remote = address("127.0.0.1", port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, size) } }
        guard bound == 0, connected == 0 else { return Answer(status: 0, body: "cannot connect from \(source)") }
        _ = message.withCString { Glibc.send(socket, $0, strlen($0), 0) }
        heard = true
        onSent()
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let split = text.range(of: "\r\n\r\n")
        let body = split.map { String(text[$0.upperBound...]) } ?? ""
        var headers: [String: String] = [:]
        for line in (split.map { text[..<$0.lowerBound] } ?? "").split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, body: body, headers: headers)
    }
}
