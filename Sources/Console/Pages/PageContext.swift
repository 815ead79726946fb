import Foundation

/// What every page needs besides its data: the role of who asks (which actions it shows), and
/// the token an action's form must carry (theirs: `Secrets.csrf`).
struct PageContext: Sendable {
    private(set) var role: ConsoleRole = .viewer
    private(set) var csrf = ""
    /// Makes a user's form token.
    let signs: @Sendable (_ user: String, _ role: ConsoleRole) -> String
    /// The services a filter offers.
    var services: [String] = []

    /// Acts on nothing: a viewer (or everyone, on a --read-only console).
    var readOnly: Bool { role < .operator }
    /// Sees the services' raw answers.
    var readsRawAnswers: Bool { role >= .operator }

    /// This page for `user` in `role`.
    func `for`(_ user: String, _ role: ConsoleRole) -> PageContext {
        var context = self
        context.role = role
        context.csrf = role > .viewer ? signs(user, role) : ""
        return context
    }

    /// A POST form with one button, or nothing when the role may not use it (Actions.role).
    /// `named` tells a screen reader what the button acts on when its label alone ("Retry")
    /// repeats down a table.
    func action(_ path: String, _ label: String, fields: [(String, String)] = [], primary: Bool = false, named: String? = nil) -> HTML {
        guard role >= Actions.role(path) ?? .admin else { return "" }
        let hidden = hiddenInputs(fields)
        let name = named.map { " aria-label=\"\($0)\"" as HTML } ?? ""
        return
            "<form class=\"inline\" method=\"post\" action=\"\(path)\">\(hidden)<button type=\"submit\"\(primary ? " class=\"primary\"" as HTML : "")\(name)>\(label)</button></form>"
    }

    /// A POST form with fields to fill in (`inputs`) and one button, or nothing when the role
    /// may not use it.
    func form(_ path: String, _ label: String, hidden fields: [(String, String)], inputs: HTML) -> HTML {
        guard role >= Actions.role(path) ?? .admin else { return "" }
        return
            "<form class=\"inline\" method=\"post\" action=\"\(path)\">\(hiddenInputs(fields))\(inputs) <button type=\"submit\">\(label)</button></form>"
    }

    /// The form's CSRF token and `fields`, as hidden inputs.
    private func hiddenInputs(_ fields: [(String, String)]) -> HTML {
        ([("csrf", csrf)] + fields).map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1)\">" as HTML }.joined()
    }
}
