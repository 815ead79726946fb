import Foundation

/// `--format json`: PostgreSQL builds the document (json_agg keeps types: numbers stay numbers,
/// times are ISO 8601); this prints it indented with sorted keys, one document per command, so
/// `jq` and scripts get a stable shape.
enum JSONOutput {
    static func print(_ document: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        // Foundation prints an empty array as "[" blank line "]"; a JSON string cannot hold a raw
        // line break, so collapsing those on the text is safe.
        let text = String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: #"\[\n\s*\n\s*\]"#, with: "[]", options: .regularExpression)
            .replacingOccurrences(of: #"\{\n\s*\n\s*\}"#, with: "{}", options: .regularExpression)
        Swift.print(escapingTerminalControls(text))
    }

    /// Foundation escapes C0 controls in strings but writes DEL, C1 controls (U+0080-009F: 0x9B
    /// is CSI, the start of a terminal command, to many terminals) and bidirectional formatting
    /// characters as they are. They can only stand inside strings, so writing them as \uXXXX
    /// keeps the document and its meaning, and a terminal shows them instead of obeying them.
    static func escapingTerminalControls(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) || TerminalText.bidiControls.contains(scalar.value) {
                out += String(format: "\\u%04x", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
