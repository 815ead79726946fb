import Foundation

/// Markup, safe by construction: a literal is markup (written in this module), and whatever is
/// interpolated into one is escaped (text, numbers, a query string) unless it is `HTML` itself.
/// Outside text can only become markup escaped; no call site has to remember to.
struct HTML: ExpressibleByStringInterpolation, Sendable, Equatable {
    private(set) var markup: String

    init(stringLiteral literal: String) { markup = literal }
    init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }
    private init(markup: String) { self.markup = markup }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity + 16 * interpolationCount) }
        mutating func appendLiteral(_ literal: String) { markup += literal }
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }
        /// Text, as content or as an attribute's value (quotes are escaped too).
        mutating func appendInterpolation(_ text: String?) { markup += HTML.escaped(text) }
        mutating func appendInterpolation(_ number: some BinaryInteger) { markup += String(number) }
    }

    var isEmpty: Bool { markup.isEmpty }

    static func + (left: HTML, right: HTML) -> HTML { HTML(markup: left.markup + right.markup) }
    static func += (left: inout HTML, right: HTML) { left.markup += right.markup }

    /// Text, escaped: for where a value is put together before it goes in.
    static func text(_ value: String?) -> HTML { HTML(markup: escaped(value)) }

    private static func escaped(_ value: String?) -> String {
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
}

extension Sequence where Element == HTML {
    func joined(separator: HTML = "") -> HTML {
        var out: HTML = ""
        for (index, part) in enumerated() {
            if index > 0 { out += separator }
            out += part
        }
        return out
    }
}

/// Markup never goes into a String: a page is HTML from its first literal to the response. A
/// String holding markup would be escaped when it went into a page, so the build says so.
extension DefaultStringInterpolation {
    @available(*, deprecated, message: "build markup as HTML: a String holding it is escaped when it goes into a page")
    mutating func appendInterpolation(_ html: HTML) { appendLiteral(html.markup) }
}

/// What the pages show, formatted: text, escaped where it goes in.
extension HTML {
    /// A moment as `<time>`: the exact time stays in `datetime` and on hover; the console's
    /// script shows it as "12 s ago" (without script, the exact time shows).
    static func time(_ value: String?) -> HTML {
        guard let value, !value.isEmpty else { return "–" }
        return "<time datetime=\"\(value)\" title=\"\(value)\">\(value)</time>"
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
    var body: HTML
    /// The page fetches itself again when what it shows changes (console.js, told by /events).
    /// Not where the operator works through a list (Review) or answers a question (a
    /// confirmation): a list that moves under the hand gets the wrong row clicked.
    var live = true

    static let sections = [
        ("/", "Overview"), ("/batches", "Batches"), ("/results", "Results"), ("/jobs", "Jobs"), ("/failures", "Failures"), ("/review", "Review"),
        ("/quality", "Quality"), ("/trials", "Trials"), ("/plan", "Plan"), ("/workers", "Workers"), ("/log", "Log"), ("/erasures", "Erasures")
    ]

    func render(readOnly: Bool) -> String {
        let nav = Self.sections.map { path, name -> HTML in
            "<a href=\"\(path)\"\(path == active ? " class=\"on\"" as HTML : "")>\(name)</a>"
        }.joined()
        let page: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · discern</title>
            <link rel="stylesheet" href="/static/console.css">
            <script src="/static/console.js" defer></script>
            </head><body>
            <header><span class="brand">discern</span><nav>\(nav)</nav>\(readOnly ? "<span class=\"ro\">read-only</span>" as HTML : "")\
            \(live ? "<button id=\"live\" type=\"button\" class=\"live\" hidden>Pause live updates</button>" as HTML : "")</header>
            <main\(live ? " data-live" as HTML : "")><h1>\(title)</h1>
            \(body)
            </main></body></html>
            """
        return page.markup
    }
}
