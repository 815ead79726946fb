import Foundation

/// A counter redrawn in place on standard error, only when it is a terminal.
final class TerminalProgress: @unchecked Sendable {
    private let label: String
    private let total: Int
    private let enabled = isatty(STDERR_FILENO) == 1
    private let lock = NSLock()
    private var lastDraw = ContinuousClock.now - .seconds(1)

    init(label: String, total: Int) {
        self.label = label
        self.total = total
    }

    func update(_ done: Int) {
        guard enabled else { return }
        lock.withLock {
            let now = ContinuousClock.now
            guard now - lastDraw > .milliseconds(100) || done == total else { return }
            lastDraw = now
            let share = total > 0 ? Double(done) / Double(total) : 1
            let filled = Int(share * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
            FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)\u{1B}[K".utf8))
        }
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
