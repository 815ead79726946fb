import Foundation
import Synchronization

/// Standard error, shared by log lines and the progress bar so they do not fight: a log line
/// clears the bar first, and the bar is drawn again on its next tick below the line.
enum StandardError {
    private static let state = Mutex(false)  // whether a bar is on the last line

    /// Writes `text`, dropping it if standard error cannot take it (a full disk under a log
    /// file, a reader gone from a pipe: SIGPIPE is ignored, see `Discern.main`). Foundation's
    /// `write(_:)` traps on such an error, which took the worker and its jobs down with it.
    static func write(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }

    /// A whole line (a log record).
    static func writeLine(_ line: String) {
        state.withLock { barShown in
            let prefix = barShown ? "\r\u{1B}[K" : ""
            barShown = false
            write(prefix + line + "\n")
        }
    }

    /// The progress bar, drawn over itself on the last line.
    static func drawBar(_ bar: String) {
        state.withLock { barShown in
            barShown = true
            write("\r" + bar + "\u{1B}[K")
        }
    }

    /// Leaves the bar as the last thing on its line.
    static func endBar() {
        state.withLock { barShown in
            if barShown { write("\n") }
            barShown = false
        }
    }
}
