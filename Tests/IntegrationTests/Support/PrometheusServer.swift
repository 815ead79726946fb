import CurlHTTP
import Foundation
import Testing

/// A real Prometheus (Debian's package) scraping the given targets every second, with
/// deploy/prometheus's alerting rules loaded; stopped and its data removed when `with` ends.
enum PrometheusServer {
    struct Running {
        let url: String
        let http: CurlHTTPClient

        /// The `data.result` of an instant query.
        func query(_ promql: String) async throws -> [[String: Any]] {
            let escaped = promql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? promql
            let object = try await get("/api/v1/query?query=\(escaped)")
            return (object["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
        }

        func get(_ path: String) async throws -> [String: Any] {
            let response = try await http.send(HTTPRequest(method: "GET", url: url + path, timeoutSeconds: 5))
            return try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
        }
    }

    static func with<T>(targets: [String: Int], _ body: (Running) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-prometheus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = ChaosJobs.repository.appendingPathComponent("deploy/prometheus/discern-alerts.yml").path
        let jobs = targets.sorted { $0.key < $1.key }.map { job, port in
            "  - job_name: \(job)\n    static_configs:\n      - targets: [\"127.0.0.1:\(port)\"]"
        }.joined(separator: "\n")
        try Data(
            """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files: ["\(rules)"]
            scrape_configs:
            \(jobs)
            """.utf8
        ).write(to: folder.appendingPathComponent("prometheus.yml"))
        let port = try FreePort.pick()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        process.arguments = [
            "--config.file=\(folder.path)/prometheus.yml", "--storage.tsdb.path=\(folder.path)/data",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"
        ]
        let log = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let running = Running(url: "http://127.0.0.1:\(port)", http: CurlHTTPClient(configuration: .init(threads: 1)))
        let started = await Poll.until {
            (try? await running.get("/api/v1/status/buildinfo"))?["status"] as? String == "success"
        }
        guard started else { throw TestSetupError("prometheus did not start on port \(port)") }
        return try await body(running)
    }
}

/// A TCP port nothing listens on right now.
enum FreePort {
    /// A port free now, let go at once: a server started right after takes it (another process
    /// may, in between). For a server that comes and goes on one port, `PortReservation`.
    static func pick() throws -> Int {
        try PortReservation().port
    }
}

/// A loopback port held for a server that comes and goes on it (the webhook receiver "away"):
/// bound with SO_REUSEADDR and never listening, so a connection to it is refused, no other
/// process is given it (bind(0) passes over a bound port, a plain bind fails), and the server,
/// binding with SO_REUSEADDR too (Python's HTTPServer does), may listen on it beside the hold.
/// A port picked and let go was once taken meanwhile by another test's server, which then
/// answered the workers' webhooks with 404.
final class PortReservation: Sendable {
    let port: Int
    private let socket: Int32

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSetupError("cannot open a socket to hold a port") }
        var reuse: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else {
            close(socket)
            throw TestSetupError("cannot hold a free port")
        }
        self.socket = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }
}
