import Foundation

/// HTML built as text, every outside string escaped on the way in: `HTML.text` for content and
/// attribute values alike (it escapes quotes too). Markup is only ever written in this module's
/// own literals.
enum HTML {
    /// A moment as `<time>`: the exact time stays in `datetime` and on hover; the console's
    /// script shows it as "12 s ago" (without script, the exact time shows).
    static func time(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "–" }
        let exact = text(value)
        return "<time datetime=\"\(exact)\" title=\"\(exact)\">\(exact)</time>"
    }

    static func text(_ value: String?) -> String {
        guard let value else { return "" }
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case _ where character.properties.generalCategory == .control && character != "\n" && character != "\t":
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A query string from pairs, each part percent-encoded; nil values are left out.
    static func query(_ pairs: [(String, String?)]) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?/")
        let parts = pairs.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    static func number(_ value: Int) -> String { value.formatted(.number.grouping(.automatic)) }

    static func confidence(_ value: Double?) -> String {
        value.map { String(format: "%.0f %%", $0 * 100) } ?? "–"
    }

    static func bytes(_ value: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(value), countStyle: .file)
    }

    /// "in 4 min", "2 h 5 min".
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "–" }
        let minutes = Int(min(seconds, 1e7) / 60)
        return minutes < 1 ? "under a minute" : minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

/// The frame every page shares: navigation, the stylesheet, the script.
struct Page {
    let title: String
    let active: String
    var body: String
    /// The page fetches itself again when what it shows changes (console.js, told by /events).
    /// Not where the operator works through a list (Review) or answers a question (a
    /// confirmation): a list that moves under the hand gets the wrong row clicked.
    var live = true

    static let sections = [("/", "Overview"), ("/batches", "Batches"), ("/results", "Results"), ("/jobs", "Jobs"), ("/failures", "Failures"), ("/review", "Review"), ("/quality", "Quality"), ("/plan", "Plan"), ("/workers", "Workers"), ("/log", "Log")]

    func render(readOnly: Bool) -> String {
        let nav = Self.sections.map { path, name in
            "<a href=\"\(path)\"\(path == active ? " class=\"on\"" : "")>\(name)</a>"
        }.joined()
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.text(title)) · discern</title>
            <link rel="stylesheet" href="/static/console.css">
            <script src="/static/console.js" defer></script>
            </head><body>
            <header><span class="brand">discern</span><nav>\(nav)</nav>\(readOnly ? "<span class=\"ro\">read-only</span>" : "")\
            \(live ? "<button id=\"live\" type=\"button\" class=\"live\" hidden>Pause live updates</button>" : "")</header>
            <main\(live ? " data-live" : "")><h1>\(HTML.text(title))</h1>
            \(body)
            </main></body></html>
            """
    }
}
