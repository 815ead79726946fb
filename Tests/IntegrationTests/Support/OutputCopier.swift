import Foundation

/// Copies a child process's output from a pipe into its log file, on a thread of its own
/// (blocking calls, off the cooperative pool), until the child has ended and the pipe holds
/// nothing more. It does not wait for the pipe's end of file: a process spawned by another test
/// at the same moment (a PostgreSQL server) may have inherited the write end and keep it open
/// for as long as it lives.
final class OutputCopier: Sendable {
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// - Parameter onChunk: after each chunk is in the file.
    /// - Parameter onEnd: once everything the child wrote is in the file.
    init(from pipe: Pipe, into file: FileHandle, onChunk: @escaping @Sendable () -> Void, onEnd: @escaping @Sendable () -> Void) throws {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw TestSetupError("no pipe to wake the output copier: errno \(errno)") }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        // Only the child's stdout and stderr (dup2'd, without the flag) should hold the write end.
        for descriptor in ends + [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        let source = pipe.fileHandleForReading
        let thread = Thread { [self] in
            copy(from: source.fileDescriptor, into: file, onChunk: onChunk)
            try? file.close()
            onEnd()
        }
        thread.name = "process-output"
        thread.start()
    }

    /// The child ended: copy what is left in the pipe, then stop.
    func childEnded() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func copy(from source: Int32, into file: FileHandle, onChunk: () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var childEnded = false
        while true {
            var watched = [pollfd(fd: source, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            // Once the child ended nothing more can come: look without waiting.
            if poll(&watched, 2, childEnded ? 0 : -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if watched[1].revents != 0 { childEnded = true }
            if watched[0].revents != 0 {
                let count = read(source, &buffer, buffer.count)
                if count > 0 {
                    try? file.write(contentsOf: Data(buffer[0..<count]))
                    onChunk()
                    continue
                }
                if count < 0 && errno == EINTR { continue }
                return  // end of file, or the pipe failed
            }
            if childEnded { return }
        }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }
}
