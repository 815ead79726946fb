import Foundation

/// `--format json`: PostgreSQL builds the document (json_agg keeps types: numbers stay numbers,
/// times are ISO 8601); this prints it indented with sorted keys, one document per command, so
/// `jq` and scripts get a stable shape.
enum JSONOutput {
    static func print(_ document: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        // Foundation prints an empty array as "[" blank line "]"; a JSON string cannot hold a raw
        // line break, so collapsing those on the text is safe.
        let text = String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: #"\[\n\s*\n\s*\]"#, with: "[]", options: .regularExpression)
            .replacingOccurrences(of: #"\{\n\s*\n\s*\}"#, with: "{}", options: .regularExpression)
        Swift.print(text)
    }
}
