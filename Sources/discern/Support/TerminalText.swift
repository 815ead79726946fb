import Foundation

/// Text from outside (a path, a service's answer, a batch name) made safe to print: control
/// characters are shown as escapes instead of reaching the terminal (an ESC could redraw the
/// screen, a CR hide what came before), and a line is cut at a readable length.
enum TerminalText {
    static func safe(_ text: String, maxLength: Int = 4096) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(maxLength) {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.properties.generalCategory == .control || bidiControls.contains(scalar.value):
                // C0/C1 controls, and the bidirectional marks, embeddings, overrides and isolates
                // that can reorder what is shown.
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > maxLength ? out + "…" : out
    }

    /// U+061C, U+200E-200F, U+202A-202E, U+2066-2069: every bidirectional formatting character.
    static let bidiControls: Set<UInt32> = Set([0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069))

    /// A string as one shell word for a command a person will paste: single-quoted, each quote
    /// of its own closed, escaped and reopened, so nothing in it is ever run.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
