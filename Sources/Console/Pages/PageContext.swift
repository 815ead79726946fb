import Foundation

/// What every page needs besides its data: whether actions are served, and the token an
/// action's form must carry.
struct PageContext: Sendable {
    let readOnly: Bool
    let csrf: String
    /// The services a filter offers.
    var services: [String] = []

    /// A POST form with one button, or nothing when the console is read-only.
    /// A one-button form; `named` tells a screen reader what the button acts on when its label
    /// alone ("Retry") repeats down a table.
    func action(_ path: String, _ label: String, fields: [(String, String)] = [], primary: Bool = false, named: String? = nil) -> HTML {
        guard !readOnly else { return "" }
        let hidden = ([("csrf", csrf)] + fields).map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1)\">" as HTML }.joined()
        let name = named.map { " aria-label=\"\($0)\"" as HTML } ?? ""
        return "<form class=\"inline\" method=\"post\" action=\"\(path)\">\(hidden)<button type=\"submit\"\(primary ? " class=\"primary\"" as HTML : "")\(name)>\(label)</button></form>"
    }
}
