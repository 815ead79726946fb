import Foundation

/// What of a program's output a failure message quotes. Usually its end; but a Swift crash report
/// ends in a long list of loaded images, and its end alone hid which check failed and where (a
/// CI run once quoted nothing but libraries), so from a crash the message quotes the reason and
/// the crashed thread's first frames, then the end.
enum OutputExcerpt {
    static func of(_ text: String, limit: Int = 2000) -> String {
        guard text.count > limit else { return text }
        let markers = ["Fatal error", "💣 Program crashed", "Crash:"]
        guard let start = markers.compactMap({ text.range(of: $0)?.lowerBound }).min() else {
            return "…" + text.suffix(limit)
        }
        let before = text[..<start].suffix(300)
        let crash = text[start...].prefix(limit)
        return "…" + before + crash + "\n…\n" + text.suffix(400)
    }
}
