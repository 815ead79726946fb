import Foundation

/// Debian's PgBouncer in transaction mode in front of the test cluster, stopped afterwards
/// however the test ends. Run as the cluster's own user when the tests run as root (PgBouncer
/// refuses root), from a folder that user can read.
enum PgBouncer {
    static let binary = "/usr/sbin/pgbouncer"

    /// Calls `body` with `conninfo` rewritten to go through the pooler.
    static func with<T>(frontOf conninfo: String, poolSize: Int = 4, _ body: (String) async throws -> T) async throws -> T {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw TestSetupError("\(binary) is missing: scripts/install-deps.sh installs Debian's pgbouncer")
        }
        guard let server = URLComponents(string: conninfo), let host = server.host, let port = server.port, let user = server.user else {
            throw TestSetupError("expected a postgresql:// URL with host, port and user, got \(conninfo)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-pgbouncer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(at: folder) }
        let listenPort = try FreePort.pick()
        // trust: the test cluster trusts local connections; PgBouncer still wants the user listed.
        try "\"\(user)\" \"\"\n".write(to: folder.appendingPathComponent("users.txt"), atomically: true, encoding: .utf8)
        try """
        [databases]
        * = host=\(host) port=\(port)
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = \(listenPort)
        unix_socket_dir =
        auth_type = trust
        auth_file = \(folder.path)/users.txt
        pool_mode = transaction
        default_pool_size = \(poolSize)
        max_client_conn = 500
        logfile = \(folder.path)/pgbouncer.log
        pidfile = \(folder.path)/pgbouncer.pid
        """.write(to: folder.appendingPathComponent("pgbouncer.ini"), atomically: true, encoding: .utf8)
        let asRoot = getuid() == 0
        let command = asRoot ? "/usr/sbin/runuser" : binary
        let prefix = asRoot ? ["-u", "postgres", "--", binary] : []
        // -d leaves the test run's session: scripts/test.sh finds it by its pidfile if the run is killed.
        if let registry = ProcessInfo.processInfo.environment["DISCERN_PIDFILE_REGISTRY"], let handle = FileHandle(forWritingAtPath: registry) {
            handle.seekToEndOfFile()
            handle.write(Data((folder.appendingPathComponent("pgbouncer.pid").path + "\n").utf8))
            try? handle.close()
        }
        _ = try await Subprocess.run(command, prefix + ["-d", folder.appendingPathComponent("pgbouncer.ini").path])
        defer {
            if let pid = try? String(contentsOf: folder.appendingPathComponent("pgbouncer.pid"), encoding: .utf8),
                let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(number, SIGTERM)
            }
        }
        try await waitUntilListening(listenPort)
        var pooled = server
        pooled.port = listenPort
        guard let url = pooled.string else { throw TestSetupError("could not build the pooled URL") }
        return try await body(url)
    }

    private static func waitUntilListening(_ port: Int) async throws {
        for _ in 0..<100 {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("pgbouncer did not listen on port \(port) within 5 s")
    }
}
