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
    func action(_ path: String, _ label: String, fields: [(String, String)] = [], primary: Bool = false, named: String? = nil) -> String {
        guard !readOnly else { return "" }
        let hidden = ([("csrf", csrf)] + fields).map { "<input type=\"hidden\" name=\"\(HTML.text($0.0))\" value=\"\(HTML.text($0.1))\">" }.joined()
        let name = named.map { " aria-label=\"\(HTML.text($0))\"" } ?? ""
        return "<form class=\"inline\" method=\"post\" action=\"\(HTML.text(path))\">\(hidden)<button type=\"submit\"\(primary ? " class=\"primary\"" : "")\(name)>\(HTML.text(label))</button></form>"
    }
}
