import Foundation
import Synchronization

/// Standard error, shared by log lines and the progress bar so they do not fight: a log line
/// clears the bar first, and the bar is drawn again on its next tick below the line.
enum StandardError {
    private static let state = Mutex(false)  // whether a bar is on the last line

    /// A whole line (a log record).
    static func writeLine(_ line: String) {
        state.withLock { barShown in
            let prefix = barShown ? "\r\u{1B}[K" : ""
            barShown = false
            FileHandle.standardError.write(Data((prefix + line + "\n").utf8))
        }
    }

    /// The progress bar, drawn over itself on the last line.
    static func drawBar(_ bar: String) {
        state.withLock { barShown in
            barShown = true
            FileHandle.standardError.write(Data(("\r" + bar + "\u{1B}[K").utf8))
        }
    }

    /// Leaves the bar as the last thing on its line.
    static func endBar() {
        state.withLock { barShown in
            if barShown { FileHandle.standardError.write(Data("\n".utf8)) }
            barShown = false
        }
    }
}
