import Foundation
import Synchronization

/// A counter redrawn in place on standard error, only when it is a terminal.
final class TerminalProgress: Sendable {
    private let label: String
    private let total: Int
    private let enabled = isatty(STDERR_FILENO) == 1
    private let lastDraw = Mutex(ContinuousClock.now - .seconds(1))

    init(label: String, total: Int) {
        self.label = label
        self.total = total
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let due: Bool = lastDraw.withLock { last in
            let now = ContinuousClock.now
            guard now - last > .milliseconds(100) || (total > 0 && done == total) else { return false }
            last = now
            return true
        }
        guard due else { return }
        // No total (a streamed count): the count alone.
        guard total > 0 else { return StandardError.drawBar("\(label): \(done)") }
        StandardError.drawBar("\(label) [\(Self.bar(Double(done) / Double(total)))] \(done)/\(total)")
    }

    /// `#####-----`: `share` (0...1) of `width` characters filled.
    static func bar(_ share: Double, width: Int = 30) -> String {
        let filled = share.isFinite ? max(0, min(width, Int(max(0, min(1, share)) * Double(width)))) : 0
        return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    }

    func finish() {
        guard enabled else { return }
        StandardError.endBar()
    }
}
