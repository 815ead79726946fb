import Foundation

/// Runs a program to completion and returns its standard output. It waits with waitpid on a
/// thread of its own (never a cooperative one), and collects output through a file, so a
/// daemon the program leaves behind (pg_ctl's server) cannot hold the call open.
enum Subprocess {
    /// - Parameters:
    ///   - environment: set (or, with an empty value, emptied) on top of this process's.
    ///   - allowFailure: return the output of a failed run instead of throwing.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        allowFailure: Bool = false
    ) async throws -> String {
        try await runWithStatus(executable, arguments, environment: environment, allowFailure: allowFailure).output
    }

    static func runWithStatus(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        allowFailure: Bool = true
    ) async throws -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("discern-subprocess-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try spawnAndWait(executable, arguments, environment: variables, output: output.path) })
            }
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 || allowFailure else {
            throw TestSetupError("\(arguments.prefix(2).joined(separator: " ")) exited \(status): \(OutputExcerpt.of(text))")
        }
        return (status, text)
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    private static func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process goes with it: the test process holds a thousand descriptors
        // or more (connections, pipes, files), and apt's download methods (mmdebstrap, a chroot's
        // apt-get) fail once their own sockets are numbered past 1023. glibc's closefrom action
        // is looked up at run time: Swift does not import it.
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The child starts with no signal blocked: this thread may block some (the runtime's
        // threads do), and a daemon it leaves behind (PgBouncer) would never see SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw TestSetupError("cannot start \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift cannot import as macros.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// One shell word for a test's `sh -c` line.
enum TestShell {
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
}
